import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalProvider } from '@egress-proxies/provider-local';
import type { KubeControlPlane } from '@egress-proxies/testenv-kube';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyObject } from '../src/api/proxy.js';
import { markCooledDown } from '../src/cluster/cluster-pool.js';
import { KubePoolController } from '../src/cluster/kube-pool-controller.js';
import { type RunningOperator, startOperator } from '../src/cluster/operator.js';
import { MEMBER_HEADER } from '../src/gateway/gateway-server.js';
import { startEchoServer } from '../src/standalone/echo-server.js';
import { CONTROL_PLANE_BUDGET_MS, startClusterWithCrds, waitFor } from './support/cluster.js';
import { chartGatewayRules } from './support/helm.js';
import { getVia, heldAnswer, startEchoTarget, tunnelVia } from './support/through-gateway.js';

// `egress-proxies gateway --pool` against the real kube-apiserver, as the chart deploys it: with
// the chart's Role and nothing more, over a pool whose members are real local proxies (the local
// provider, one loopback address each) created by the operator's reconcilers. Two replicas run
// side by side, as a Deployment's would.
const NS = 'gw-pool';
const POOL = 'crawl';
// Every member listens on this port of its own address, as VMs would.
const PORT = 24398;
const BINDS = ['127.0.0.41', '127.0.0.42', '127.0.0.43'];
const PROVIDERS = ['local-a', 'local-b', 'local-c'];
const base = '/apis/egress-proxies.dev/v1alpha1';
const main = join(import.meta.dirname, '..', 'dist', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'ep-gw-pool-'));
const alice = { user: 'alice', password: 'pw-alice' };

let cp: KubeControlPlane;
let kc: KubeConfig;
let op: RunningOperator | undefined;
let pools: KubePoolController | undefined;
let probeTarget: Awaited<ReturnType<typeof startEchoServer>>;
let target: Awaited<ReturnType<typeof startEchoTarget>>;
const gateways: ChildProcess[] = [];
const providerConfigs = PROVIDERS.map((name, i) => ({
  name,
  local: {
    stateDir: join(dir, name),
    bindAddress: BINDS[i] as string,
    portRange: { min: PORT, max: PORT },
    engine: 'node' as const,
  },
}));

const members = async () =>
  (await cp.request('GET', `${base}/namespaces/${NS}/proxies?labelSelector=egress-proxies.dev/pool=${POOL}`))
    .json<{ items: ProxyObject[] }>()
    .items.filter((p) => !p.metadata.deletionTimestamp);
const poolObject = async () =>
  (await cp.request('GET', `${base}/namespaces/${NS}/proxypools/${POOL}`)).json<{
    status?: {
      gateway?: string;
      members?: { name: string; cooledDown?: boolean }[];
      conditions?: { type: string; status: string; reason: string }[];
    };
  }>();
const patchPool = async (body: unknown) => {
  const r = await cp.request('PATCH', `${base}/namespaces/${NS}/proxypools/${POOL}`, body, {
    contentType: 'application/merge-patch+json',
  });
  expect(r.status, r.body).toBe(200);
};

/** Starts `egress-proxies gateway` as its own process; its proxy and metrics ports once it listens. */
async function startGatewayProcess(
  args: string[],
): Promise<{ port: number; metrics: number; log: () => string }> {
  const child = spawn(process.execPath, [main, 'gateway', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  gateways.push(child);
  let out = '';
  child.stdout?.on('data', (c) => {
    out += c;
  });
  child.stderr?.on('data', (c) => {
    out += c;
  });
  const ports = await new Promise<{ port: number; metrics: number }>((resolve, reject) => {
    const check = () => {
      const lines = out.split('\n').filter((l) => l.startsWith('{'));
      const find = (msg: string) =>
        lines.map((l) => JSON.parse(l) as { msg: string; port: number }).find((l) => l.msg === msg)?.port;
      const port = find('gateway: listening');
      const metrics = find('gateway: metrics listening');
      if (port && metrics) resolve({ port, metrics });
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => reject(new Error(`gateway exited ${code}: ${out}`)));
  });
  return { ...ports, log: () => out };
}

const metricsText = async (port: number) => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();

beforeAll(async () => {
  if (!existsSync(main)) throw new Error(`${main} is missing: build the operator first (pnpm build)`);
  cp = await startClusterWithCrds();
  await cp.ensureNamespace(NS);
  probeTarget = await startEchoServer();
  target = await startEchoTarget();
  const configPath = join(dir, 'providers.yaml');
  writeFileSync(
    configPath,
    providerConfigs
      .map(
        (p) =>
          `- name: ${p.name}\n  type: local\n  local: {stateDir: ${p.local.stateDir}, bindAddress: ${p.local.bindAddress}, portRange: {min: ${PORT}, max: ${PORT}}, engine: node}\n`,
      )
      .join(''),
  );
  kc = new KubeConfig();
  kc.loadFromString(cp.kubeconfig());
  op = await startOperator({
    kubeConfig: kc,
    configPath,
    installation: 'gw-pool-test',
    operatorNamespace: 'egress-proxies-system',
    leaderElection: false,
    watchNamespace: NS,
    workers: 3,
    gcIntervalMs: 3_600_000,
    healthIntervalMs: 3_600_000,
    pollIntervalMs: 200,
    failedProbeRetryMs: 300,
  });
  pools = new KubePoolController({ kubeConfig: kc, namespace: NS, intervalMs: 300 });
  pools.start();
}, CONTROL_PLANE_BUDGET_MS);

afterAll(async () => {
  await Promise.all(
    gateways.map(
      (g) =>
        new Promise<void>((r) => {
          if (g.exitCode !== null) return r();
          g.once('exit', () => r());
          g.kill('SIGKILL');
        }),
    ),
  );
  await pools?.stop();
  // The members go through the operator (its finalizer deletes each local proxy)...
  if (cp) {
    await cp.request('DELETE', `${base}/namespaces/${NS}/proxypools/${POOL}`);
    for (const m of await members().catch(() => []))
      await cp.request('DELETE', `${base}/namespaces/${NS}/proxies/${m.metadata.name}`);
    await waitFor('the members deleted', async () => (await members()).length === 0, 120_000).catch(() => {});
  }
  await op?.stop();
  // ...and whatever a failure left behind is deleted from the providers' own records.
  for (const p of providerConfigs) {
    const provider = createLocalProvider(p.local);
    for (const inst of await provider.listByTag({}).catch(() => [])) await provider.delete(inst.id, {});
  }
  await cp?.stop();
  await probeTarget?.close();
  await target?.close();
  rmSync(dir, { recursive: true, force: true });
}, 300_000);

describe('egress-proxies gateway --pool in the cluster', () => {
  it('reads the pool (members, spec.gateway, users Secret) with the chart Role, and replicas share sessions and cooldowns', async () => {
    const secret = await cp.request('POST', `/api/v1/namespaces/${NS}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'crawl-users' },
      stringData: { alice: alice.password },
    });
    expect(secret.status, secret.body).toBe(201);
    const created = await cp.request('POST', `${base}/namespaces/${NS}/proxypools`, {
      apiVersion: 'egress-proxies.dev/v1alpha1',
      kind: 'ProxyPool',
      metadata: { name: POOL },
      spec: {
        replicas: 3,
        template: {
          provider: 'local-a',
          port: PORT,
          probe: { target: probeTarget.url, interval: '30s', timeout: '5s', retries: 2 },
        },
        spread: PROVIDERS.map((provider) => ({ provider })),
        // Not the defaults, so the gateway can be seen using the pool's values.
        gateway: { cooldown: '1h', banStatuses: [403], usersSecret: 'crawl-users' },
      },
    });
    expect(created.status, created.body).toBe(201);
    const ready = await waitFor(
      'three Ready members',
      async () => {
        const ms = await members();
        return ms.length === 3 && ms.every((m) => m.status?.phase === 'Ready') ? ms : undefined;
      },
      180_000,
    );
    const names = ready.map((m) => m.metadata.name).sort();
    expect(ready.map((m) => m.status?.ip).sort()).toEqual(BINDS);

    // No gateway Service yet: the status names no endpoint, and says why.
    await waitFor('the Gateway condition', async () =>
      (await poolObject()).status?.conditions?.some((c) => c.type === 'Gateway' && c.reason === 'NoService'),
    );
    expect((await poolObject()).status?.gateway).toBeUndefined();

    // Replica A: the chart's Role exactly, users from a mounted Secret's files.
    const rules = chartGatewayRules(POOL, NS, ['gateways[0].usersSecret=crawl-users']);
    const kubeconfigA = join(dir, 'kubeconfig-a');
    const userA = await cp.createLimitedUser(NS, 'gw-mounted', rules as never);
    writeFileSync(kubeconfigA, cp.kubeconfig(userA));
    const usersDir = join(dir, 'users');
    mkdirSync(usersDir);
    writeFileSync(join(usersDir, 'alice'), `${alice.password}\n`);
    // Replica B: no --users-dir, so it reads the pool's usersSecret; the Role grants that one Secret.
    const kubeconfigB = join(dir, 'kubeconfig-b');
    writeFileSync(
      kubeconfigB,
      cp.kubeconfig(
        await cp.createLimitedUser(NS, 'gw-api', [
          ...(rules as never[]),
          // resourceNames reaches the API server as written (testenv-kube's rule type leaves it out).
          {
            apiGroups: [''],
            resources: ['secrets'],
            resourceNames: ['crawl-users'],
            verbs: ['get'],
          } as never,
        ]),
      ),
    );
    const common = ['--pool', `${NS}/${POOL}`, '--listen', '127.0.0.1:0', '--metrics', '127.0.0.1:0'];
    const a = await startGatewayProcess([...common, '--kubeconfig', kubeconfigA, '--users-dir', usersDir]);
    const b = await startGatewayProcess([...common, '--kubeconfig', kubeconfigB]);

    for (const g of [a, b]) {
      expect((await getVia(g.port, target.url)).status).toBe(407);
      expect((await getVia(g.port, target.url, { user: 'alice', password: 'wrong' })).status).toBe(407);
    }
    // Every member carries traffic, through both replicas.
    for (const g of [a, b]) {
      const seen = new Set<string>();
      for (let i = 0; i < 6; i++) {
        const r = await getVia(g.port, target.url, alice);
        expect(r.status).toBe(200);
        seen.add(r.headers[MEMBER_HEADER] as string);
      }
      expect([...seen].sort()).toEqual(names);
      const t = await tunnelVia(g.port, target.url.replace(/^http:\/\/|\/$/g, ''), alice);
      expect(t.status).toBe(200);
      t.socket.destroy();
    }
    const sessionMembers = async (g: { port: number }) => {
      const out: string[] = [];
      for (let s = 0; s < 12; s++)
        out.push(
          (await getVia(g.port, target.url, { user: `alice-session-k${s}`, password: alice.password }))
            .headers[MEMBER_HEADER] as string,
        );
      return out;
    };
    const sessionsA = await sessionMembers(a);
    expect(await sessionMembers(b)).toEqual(sessionsA);
    expect(new Set(sessionsA).size).toBeGreaterThan(1);

    // The pool's banStatuses is [403]: a 429 does not cool the member down, a 403 does, for the
    // pool's cooldown (1h, not the 60s default).
    target.answerNext.push(429);
    const r429 = await getVia(a.port, target.url, alice);
    expect(r429.status).toBe(429);
    target.answerNext.push(403);
    const r403 = await getVia(a.port, target.url, alice);
    expect(r403.status).toBe(403);
    const banned = r403.headers[MEMBER_HEADER] as string;
    const mark = await waitFor('the cooled-down mark on the member', async () => {
      const m = (await members()).find((p) => p.metadata.name === banned);
      return m?.metadata.annotations?.['egress-proxies.dev/cooled-down'];
    });
    const [at, reason, until] = mark.split(' ');
    expect(reason).toBe('status-403');
    expect(Date.parse(until as string) - Date.parse(at as string)).toBeGreaterThan(59 * 60_000);
    const marked = (await members()).filter(
      (m) => m.metadata.annotations?.['egress-proxies.dev/cooled-down'],
    );
    expect(marked.map((m) => m.metadata.name)).toEqual([banned]);

    // Replica B never saw the 403: it reads the mark and excludes the member too.
    await waitFor('replica B excludes the banned member', async () =>
      (await metricsText(b.metrics)).includes(
        `egress_proxies_gateway_member_cooled_down{pool="${NS}/${POOL}",member="${banned}"} 1`,
      ),
    );
    for (const g of [a, b])
      for (let i = 0; i < 6; i++)
        expect((await getVia(g.port, target.url, alice)).headers[MEMBER_HEADER]).not.toBe(banned);
    const afterA = await sessionMembers(a);
    expect(afterA).not.toContain(banned);
    expect(await sessionMembers(b)).toEqual(afterA);
    // Sessions that were not on the banned member stayed where they were.
    sessionsA.forEach((m, i) => {
      if (m !== banned) expect(afterA[i]).toBe(m);
    });

    // The pool controller shows the cooldown in the pool's status.
    await waitFor('status.members shows the cooldown', async () =>
      (await poolObject()).status?.members?.some((m) => m.name === banned && m.cooledDown === true),
    );

    const markOf = async (name: string) =>
      (await members()).find((p) => p.metadata.name === name)?.metadata.annotations?.[
        'egress-proxies.dev/cooled-down'
      ];
    const endOf = (m: string) => Date.parse(m.split(' ')[2] as string);

    // A ban answered while its member already cools down (a request that was in flight) moves the
    // end of the cooldown, and the mark follows: what the pool and the other replica read ends
    // where the cooldown does.
    const held = [heldAnswer(), heldAnswer()];
    target.answerNext.push(...held.map((h) => h.answer));
    const pinned = { user: 'alice-session-held', password: alice.password };
    const inFlight = [getVia(a.port, target.url, pinned), getVia(a.port, target.url, pinned)];
    await waitFor('both requests at the target', () => target.answerNext.length === 0);
    held[0]?.release(403);
    const again = (await Promise.race(inFlight)).headers[MEMBER_HEADER] as string;
    const firstMark = await waitFor(`${again} marked`, () => markOf(again));
    held[1]?.release(403);
    expect((await Promise.all(inFlight)).map((r) => r.headers[MEMBER_HEADER])).toEqual([again, again]);
    const movedMark = await waitFor('the mark moved to the later end', async () => {
      const m = await markOf(again);
      return m && m !== firstMark ? m : undefined;
    });
    expect(endOf(movedMark)).toBeGreaterThan(endOf(firstMark));

    // A mark's end only moves later: a write that was overtaken (or another replica's earlier
    // end) leaves it, and two racing writes leave the later end.
    const api = kc.makeApiClient(CustomObjectsApi);
    const ref = { namespace: NS, name: POOL };
    const write = (until: number) =>
      markCooledDown(api, ref, { member: again, reason: 'status-429', at: Date.now(), until }, 3_600_000);
    expect(await write(endOf(firstMark))).toBe(false);
    expect(await markOf(again)).toBe(movedMark);
    const [sooner, later] = [endOf(movedMark) + 1_000, endOf(movedMark) + 2_000];
    await Promise.all([write(later), write(sooner)]);
    expect(endOf((await markOf(again)) as string)).toBe(later);

    // A change of spec.gateway applies without a restart: 429 now bans too.
    await patchPool({ spec: { gateway: { banStatuses: [403, 429] } } });
    const second = await waitFor(
      'a 429 cools a member down',
      async () => {
        target.answerNext.push(429);
        const r = await getVia(a.port, target.url, alice);
        const who = r.headers[MEMBER_HEADER] as string;
        if (r.status !== 429) return undefined;
        // The mark follows the answer by one API call.
        return (await waitFor(`${who} marked`, () => markOf(who), 5_000).catch(() => undefined))
          ? who
          : undefined;
      },
      60_000,
      500,
    );
    expect(second).not.toBe(banned);

    // status.gateway appears with the gateway Service and goes with it.
    const svc = await cp.request('POST', `/api/v1/namespaces/${NS}/services`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: `${POOL}-gateway` },
      spec: { selector: { app: 'gw' }, ports: [{ name: 'proxy', port: 8080 }] },
    });
    expect(svc.status, svc.body).toBe(201);
    await waitFor(
      'status.gateway names the Service',
      async () => (await poolObject()).status?.gateway === `${POOL}-gateway.${NS}.svc:8080`,
    );
    expect((await poolObject()).status?.conditions?.find((c) => c.type === 'Gateway')?.status).toBe('True');
    expect((await cp.request('DELETE', `/api/v1/namespaces/${NS}/services/${POOL}-gateway`)).status).toBe(
      200,
    );
    await waitFor('status.gateway removed', async () => (await poolObject()).status?.gateway === undefined);

    // Nothing beyond the Role: the gateway's identity reads no Secret and cannot change the pool.
    const asA = { user: userA };
    expect(
      (await cp.request('GET', `/api/v1/namespaces/${NS}/secrets/crawl-users`, undefined, asA)).status,
    ).toBe(403);
    const denied = await cp.request(
      'PATCH',
      `${base}/namespaces/${NS}/proxypools/${POOL}`,
      { spec: { replicas: 1 } },
      { ...asA, contentType: 'application/merge-patch+json' },
    );
    expect(denied.status).toBe(403);
    // And the logs never carry the users' passwords.
    for (const l of [a.log(), b.log()]) expect(l).not.toContain(alice.password);
  }, 600_000);
});
