import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeControlPlane } from '@egress-proxies/testenv-kube';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { KubePoolController } from '../src/cluster/kube-pool-controller.js';
import { LOAD_STALE_MS, readLoadReports, writeLoadReport } from '../src/cluster/pool-load-lease.js';
import { MEMBER_HEADER, MOVED_HEADER } from '../src/gateway/gateway-server.js';
import { SESSION_HEADER } from '../src/gateway/session.js';
import { SessionTable, sessionHash } from '../src/gateway/session-table.js';
import { busyByMember } from '../src/pool/autoscale-plan.js';
import { DRAINING_ANNOTATION } from '../src/pool/drain-mark.js';
import { CONTROL_PLANE_BUDGET_MS, startClusterWithCrds, waitFor } from './support/cluster.js';
import { chartGatewayRules, toolEnv } from './support/helm.js';
import { MAIN } from './support/run-cli.js';
import {
  echoes,
  getVia,
  startEchoTarget,
  startMember,
  startTcpEcho,
  type TestMember,
  tunnelVia,
} from './support/through-gateway.js';

// The pool controller's built-in autoscaler against the real kube-apiserver: gateway replicas
// report their load on per-replica Leases, the controller sums the fresh ones and writes the
// size to spec.replicas. The controller's clock is the test's, so staleness is exact.
const NS = 'pool-scale';
const base = '/apis/egress-proxies.dev/v1alpha1';
/** The UID the downward API would give the gateway replica's Pod. */
const POD_UID = '0b9a3c4e-7d2f-4e1a-9c55-1f3e2d4c5b6a';
let cp: KubeControlPlane;
let kc: KubeConfig;
let now = Date.parse('2026-12-06T03:00:00Z');
const signal = new AbortController().signal;

beforeAll(async () => {
  cp = await startClusterWithCrds();
  await cp.ensureNamespace(NS);
  kc = new KubeConfig();
  kc.loadFromString(cp.kubeconfig());
}, CONTROL_PLANE_BUDGET_MS);
const dir = mkdtempSync(join(tmpdir(), 'ep-kube-scale-'));
const gateways: ChildProcess[] = [];
/** Real local proxies standing in for members, and the sockets opened through them. */
const servers: TestMember[] = [];
const sockets: Socket[] = [];
afterAll(async () => {
  for (const s of sockets) s.destroy();
  for (const m of servers) await m.kill();
  for (const gateway of gateways) {
    if (gateway.exitCode !== null) continue;
    const exited = new Promise((r) => gateway.once('exit', r));
    gateway.kill('SIGTERM');
    await exited;
  }
  await cp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

type Pool = {
  spec: { replicas: number };
  status?: {
    autoscale?: {
      desired: number;
      activeConnections: number;
      requestsPerSecond: string;
      waiting: number;
      lastActiveTime?: string;
      lastScaleTime?: string;
    };
    conditions?: { type: string; reason: string; message: string }[];
    replicas?: number;
    members?: { name: string; drainingSince?: string }[];
  };
};
type Member = {
  metadata: {
    name: string;
    creationTimestamp: string;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
  };
};
const getPool = async (name = 'web') =>
  (await cp.request('GET', `${base}/namespaces/${NS}/proxypools/${name}`)).json<Pool>();
/** One controller pass over one pool, then the pool as that pass left it. */
const passOver = async (ctl: KubePoolController, name: string) => {
  await ctl.reconcile(
    (await cp.request('GET', `${base}/namespaces/${NS}/proxypools/${name}`)).json(),
    signal,
  );
  return getPool(name);
};
const scalingReason = (p: Pool) => p.status?.conditions?.find((c) => c.type === 'Scaling')?.reason;
const members = async (pool: string) =>
  (
    await cp.request(
      'GET',
      `${base}/namespaces/${NS}/proxies?labelSelector=${encodeURIComponent(`egress-proxies.dev/pool=${pool}`)}`,
    )
  ).json<{ items: Member[] }>().items;
/** The members not being deleted, by name. */
const liveMembers = async (pool: string) =>
  new Map(
    (await members(pool)).filter((m) => !m.metadata.deletionTimestamp).map((m) => [m.metadata.name, m]),
  );
const scaleTo = async (pool: string, replicas: number) => {
  const r = await cp.request(
    'PATCH',
    `${base}/namespaces/${NS}/proxypools/${pool}`,
    { spec: { replicas } },
    { contentType: 'application/merge-patch+json' },
  );
  expect(r.status, r.body).toBe(200);
};
const scalingMessage = (p: Pool) => p.status?.conditions?.find((c) => c.type === 'Scaling')?.message ?? '';
/** Marks a member Proxy Ready at an address (nothing here reconciles Proxies). */
const markReady = async (name: string, address: Record<string, unknown> = {}) => {
  const r = await cp.request(
    'PATCH',
    `${base}/namespaces/${NS}/proxies/${name}/status`,
    { status: { phase: 'Ready', ...address } },
    { contentType: 'application/merge-patch+json' },
  );
  expect(r.status, r.body).toBe(200);
};
const report = (replica: string, activeConnections: number, at = now) =>
  writeLoadReport(
    kc,
    { namespace: NS, pool: 'web', replica },
    { at, activeConnections, requestsPerSecond: 1.5, waiting: 0 },
    signal,
  );

/** The controller runs with the operator's rules (config/rbac, the same as the chart's) and no more. */
async function operatorKubeConfig(pool: string): Promise<KubeConfig> {
  const role = parse(
    readFileSync(join(__dirname, '..', '..', '..', 'config', 'rbac', 'role.yaml'), 'utf8'),
  ) as {
    rules: unknown[];
  };
  const user = await cp.createLimitedUser(NS, `operator-${pool}`, role.rules as never);
  const asOperator = new KubeConfig();
  asOperator.loadFromString(cp.kubeconfig(user));
  return asOperator;
}

/** A pool at zero of local members (nothing reconciles them here), with `spec` added. */
const createPool = (name: string, spec: Record<string, unknown>) =>
  cp.request('POST', `${base}/namespaces/${NS}/proxypools`, {
    apiVersion: 'egress-proxies.dev/v1alpha1',
    kind: 'ProxyPool',
    metadata: { name },
    spec: { replicas: 0, template: { provider: 'local' }, ...spec },
  });

/**
 * A gateway replica of `pool` as the chart runs it: its own process, the chart's Role and no more,
 * and its Pod's name and UID from the downward API (`POD_UID` is made up: no Pod exists here).
 */
async function startGateway(pool: string, podName: string) {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build the operator first (pnpm build)`);
  const user = await cp.createLimitedUser(
    NS,
    `gw-${pool}`,
    chartGatewayRules(pool, NS, [`gateways[0].usersSecret=${pool}-users`]) as never,
  );
  const kubeconfig = join(dir, `kubeconfig-${pool}`);
  writeFileSync(kubeconfig, cp.kubeconfig(user));
  const child = spawn(
    process.execPath,
    [
      MAIN,
      'gateway',
      '--pool',
      `${NS}/${pool}`,
      '--kubeconfig',
      kubeconfig,
      '--listen',
      '127.0.0.1:0',
      '--metrics',
      '127.0.0.1:0',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, POD_NAME: podName, POD_UID: POD_UID } },
  );
  gateways.push(child);
  let out = '';
  child.stdout?.on('data', (c) => {
    out += c;
  });
  child.stderr?.on('data', (c) => {
    out += c;
  });
  const listening = (msg: string) =>
    waitFor(msg, async () => {
      const line = out.split('\n').find((l) => l.includes(`"${msg}"`));
      return line ? (JSON.parse(line) as { port: number }).port : undefined;
    });
  const port = await listening('gateway: listening');
  const metrics = await listening('gateway: metrics listening');
  return { child, port, metrics, out: () => out };
}

describe('ProxyPool autoscale in the cluster', () => {
  it("sums two gateway replicas' fresh load reports, leaves a stale one out and writes the size to spec.replicas", async () => {
    const created = await createPool('web', {
      gateway: { enabled: false },
      autoscale: { minReplicas: 0, maxReplicas: 10, targetActiveConnections: 10, stepInterval: '0s' },
    });
    expect(created.status, created.body).toBe(201);
    await report('gw-a', 30);
    await report('gw-b', 25);
    // A replica that stopped reporting a minute ago: its load is not counted.
    await report('gw-old', 500, now - 60_000);
    const ctl = new KubePoolController({
      kubeConfig: await operatorKubeConfig('web'),
      namespace: NS,
      now: () => now,
    });
    await ctl.reconcileAll(signal);
    const pool = await getPool();
    expect(pool.spec.replicas).toBe(6);
    expect(pool.status?.autoscale).toMatchObject({
      desired: 6,
      activeConnections: 55,
      requestsPerSecond: '3',
    });
    const scaling = pool.status?.conditions?.find((c) => c.type === 'Scaling');
    expect(scaling).toMatchObject({ reason: 'ScalingUp' });
    expect(await members('web')).toHaveLength(6);

    // The same replica's newer report replaces its older one.
    now += 5_000;
    await report('gw-a', 75);
    await report('gw-b', 25);
    await ctl.reconcileAll(signal);
    expect((await getPool()).spec.replicas).toBe(10);
    expect((await getPool()).status?.conditions?.find((c) => c.type === 'Scaling')?.reason).toBe('ScalingUp');
  });

  it('wakes a pool at zero: a request held by a gateway replica (with the chart Role) makes the controller scale to one', async () => {
    const created = await createPool('wake', {
      autoscale: { minReplicas: 0, maxReplicas: 2, targetActiveConnections: 5, wakeTimeout: '120s' },
    });
    expect(created.status, created.body).toBe(201);
    const { child: gateway, port, metrics, out } = await startGateway('wake', 'gw-wake-0');
    // Ready with no member: the Service must keep sending the requests that wake the pool.
    expect((await fetch(`http://127.0.0.1:${metrics}/readyz`)).status).toBe(200);
    // No member: the request is held, and the replica reports it on its Lease.
    const answer = getVia(port, 'http://127.0.0.1:9/');
    const ctl = new KubePoolController({ kubeConfig: kc, namespace: NS });
    const woken = await waitFor('the pool woken to one member', async () => {
      const p = await passOver(ctl, 'wake');
      return p.spec.replicas === 1 ? p : undefined;
    });
    expect(woken.status?.autoscale).toMatchObject({ desired: 1, waiting: 1 });
    expect(woken.status?.conditions?.find((c) => c.type === 'Scaling')?.reason).toBe('WakingOnDemand');
    // The drain answers the held request (no member came: nothing here reconciles Proxies).
    gateway.kill('SIGTERM');
    expect((await answer).status).toBe(503);
    expect(out()).not.toContain('cannot report the load');
    // The replica's Lease is owned by its Pod, so the cluster deletes it with the Pod.
    const lease = (
      await cp.request('GET', `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/wake-load-gw-wake-0`)
    ).json<{ metadata: { ownerReferences?: unknown[] } }>();
    expect(lease.metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Pod', name: 'gw-wake-0', uid: POD_UID },
    ]);
  });

  it('puts a woken pool back to zero after scaleDownAfter without load, deleting its member on the way', async () => {
    // Real time, short durations: the held request is answered 503 after wakeTimeout (no member
    // comes: nothing here reconciles Proxies), then the replica keeps reporting no load.
    const created = await createPool('nap', {
      autoscale: {
        minReplicas: 0,
        maxReplicas: 2,
        targetActiveConnections: 5,
        wakeTimeout: '1s',
        scaleDownAfter: '3s',
        stepInterval: '0s',
      },
    });
    expect(created.status, created.body).toBe(201);
    const { port, out } = await startGateway('nap', 'gw-nap-0');
    const answer = getVia(port, 'http://127.0.0.1:9/');
    const ctl = new KubePoolController({ kubeConfig: await operatorKubeConfig('nap'), namespace: NS });
    // One pass, then the pool as that pass left it: every reason on the way is seen.
    const pass = () => passOver(ctl, 'nap');
    const woken = await waitFor('the pool woken to one member', async () => {
      const p = await pass();
      return p.spec.replicas === 1 ? p : undefined;
    });
    expect(scalingReason(woken)).toBe('WakingOnDemand');
    expect(await members('nap')).toHaveLength(1);
    expect((await answer).status).toBe(503);

    const reasons: string[] = [];
    let down: Pool | undefined;
    const asleep = await waitFor(
      'the pool back at zero',
      async () => {
        const p = await pass();
        const reason = scalingReason(p) ?? '';
        if (reasons.at(-1) !== reason) reasons.push(reason);
        if (reason === 'ScalingDown') down = p;
        return p.spec.replicas === 0 && reason === 'Idle' ? p : undefined;
      },
      60_000,
      250,
    );
    // Held (the load fell below one member less than scaleDownAfter ago), then down, then idle;
    // before that, Steady while the replica's Lease still counted the held request.
    expect(reasons.slice(-3)).toEqual(['WaitingToScaleDown', 'ScalingDown', 'Idle']);
    expect(reasons.slice(0, -3).filter((r) => r !== 'Steady')).toEqual([]);
    expect(await members('nap')).toEqual([]);
    expect(asleep.status?.autoscale).toMatchObject({ desired: 0, waiting: 0, activeConnections: 0 });
    // Not before scaleDownAfter: the pass that scaled down came at least 3 s after the load last
    // needed a member (at zero, the next pass counts zero as needed again: Idle).
    expect(down?.spec.replicas).toBe(0);
    const { lastActiveTime, lastScaleTime } = down?.status?.autoscale ?? {};
    expect(Date.parse(lastScaleTime ?? '') - Date.parse(lastActiveTime ?? '')).toBeGreaterThanOrEqual(3000);
    expect(out()).not.toContain('cannot report the load');
  });

  it('`kubectl scale pxp` drives a pool with an External scaler, and the controller keeps it within min..max', async () => {
    const created = await createPool('ext', {
      replicas: 2,
      gateway: { enabled: false },
      autoscale: { scaler: 'External', minReplicas: 1, maxReplicas: 4 },
    });
    expect(created.status, created.body).toBe(201);
    const kubeconfig = join(dir, 'kubeconfig-kubectl');
    writeFileSync(kubeconfig, cp.kubeconfig());
    const kubectl = (...args: string[]) => {
      // Its discovery cache in the test's dir, not the home directory.
      const r = spawnSync('kubectl', [...args, '-n', NS, '--kubeconfig', kubeconfig], {
        encoding: 'utf8',
        env: toolEnv(dir),
      });
      if (r.error || r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.error ?? r.stderr}`);
      return r.stdout.trim();
    };
    const ctl = new KubePoolController({
      kubeConfig: await operatorKubeConfig('ext'),
      namespace: NS,
      now: () => now,
    });
    const reconciled = () => passOver(ctl, 'ext');

    expect(kubectl('scale', 'pxp', 'ext', '--replicas=3')).toBe('proxypool.egress-proxies.dev/ext scaled');
    let pool = await reconciled();
    expect(pool.spec.replicas).toBe(3);
    expect(scalingReason(pool)).toBe('External');
    expect(await members('ext')).toHaveLength(3);

    // Above maxReplicas: back to the bound at once, saying why.
    kubectl('scale', 'pxp', 'ext', '--replicas=9');
    pool = await reconciled();
    expect(pool.spec.replicas).toBe(4);
    expect(scalingReason(pool)).toBe('ScalingDown');
    expect(pool.status?.conditions?.find((c) => c.type === 'Scaling')?.message).toContain(
      'above maxReplicas 4',
    );
    expect(await members('ext')).toHaveLength(4);
    expect(kubectl('get', 'pxp', 'ext', '-o', 'jsonpath={.spec.replicas}')).toBe('4');
  });

  it('a scale-down takes the member no gateway replica reports busy, whatever its age', async () => {
    const created = await createPool('calm', {
      gateway: { enabled: false },
      autoscale: {
        minReplicas: 0,
        maxReplicas: 4,
        targetActiveConnections: 10,
        scaleDownAfter: '0s',
        stepInterval: '0s',
      },
    });
    expect(created.status, created.body).toBe(201);
    const calm = (replica: string, activeConnections: number, busy?: Record<string, number>) =>
      writeLoadReport(
        kc,
        { namespace: NS, pool: 'calm', replica },
        { at: now, activeConnections, requestsPerSecond: 0, waiting: 0, ...(busy ? { busy } : {}) },
        signal,
      );
    const ctl = new KubePoolController({
      kubeConfig: await operatorKubeConfig('calm'),
      namespace: NS,
      now: () => now,
    });
    await calm('gw-a', 15);
    await ctl.reconcileAll(signal);
    const two = (await members('calm')).map((m) => m.metadata.name).sort();
    expect(two).toHaveLength(2);
    for (const name of two) await markReady(name);
    // Both were created in the same second: without the reports' busy counts the name decides, and
    // the first name would go. Its sessions and a tunnel are on two replicas; the other carries none.
    const [first = '', second = ''] = two;
    now += 5_000;
    await calm('gw-a', 5, { [first]: 1 });
    await calm('gw-b', 0, { [first]: 2 });
    await ctl.reconcileAll(signal);
    expect((await getPool('calm')).spec.replicas).toBe(1);
    const left = await waitFor('one member left', async () => {
      const live = (await members('calm')) as { metadata: { name: string; deletionTimestamp?: string } }[];
      const kept = live.filter((m) => !m.metadata.deletionTimestamp).map((m) => m.metadata.name);
      return kept.length === 1 ? kept : undefined;
    });
    expect(left).toEqual([first]);
    expect(left).not.toContain(second);
  });

  it('drains a scale-down victim a gateway replica reports busy: its tunnel goes on, new work goes elsewhere, it goes when the tunnel ends', async () => {
    const created = await createPool('drain', {
      replicas: 3,
      // The timeout is far off: the member goes because its tunnel ended.
      autoscale: { scaler: 'External', minReplicas: 0, maxReplicas: 3, drainTimeout: '10m' },
    });
    expect(created.status, created.body).toBe(201);
    const ctl = new KubePoolController({ kubeConfig: await operatorKubeConfig('drain'), namespace: NS });
    const pass = () => passOver(ctl, 'drain');
    await pass();
    const listed = await members('drain');
    expect(listed).toHaveLength(3);
    // Each member a real local proxy.
    for (const m of listed) {
      const proxy = await startMember(m.metadata.name, '127.0.0.1');
      servers.push(proxy);
      await markReady(m.metadata.name, { ip: '127.0.0.1', port: proxy.port });
    }
    // By age alone (then name, for members made in the same second) `a` would go first, then `b`.
    const [a = '', b = '', c = ''] = [...listed]
      .sort(
        (x, y) =>
          x.metadata.creationTimestamp.localeCompare(y.metadata.creationTimestamp) ||
          x.metadata.name.localeCompare(y.metadata.name),
      )
      .map((m) => m.metadata.name);
    const { port, out } = await startGateway('drain', 'gw-drain-0');
    const tcp = await startTcpEcho();
    const echo = await startEchoTarget();
    try {
      // Tunnels through `a` and `c` (round-robin hands each new one to the next member); any other
      // is closed, so `b` carries nothing.
      const through = new Map<string, Socket>();
      await waitFor('tunnels held through a and c', async () => {
        const t = await tunnelVia(port, tcp.target);
        sockets.push(t.socket);
        const member = t.headers[MEMBER_HEADER] ?? '';
        if (t.status !== 200 || member === b || through.has(member)) t.socket.destroy();
        else through.set(member, t.socket);
        return through.has(a) && through.has(c);
      });
      const viaA = through.get(a) as Socket;
      const viaC = through.get(c) as Socket;
      const reported = async () =>
        busyByMember(await readLoadReports(kc, NS, 'drain', signal), Date.now(), LOAD_STALE_MS);
      await waitFor('the gateway reporting a and c busy, b idle', async () => {
        const busy = await reported();
        return busy.get(a) === 1 && busy.get(c) === 1 && !busy.has(b);
      });

      // Down by one: `b`, which carries nothing, is deleted at once; nothing drains.
      await scaleTo('drain', 2);
      await pass();
      expect([...(await liveMembers('drain')).keys()].sort()).toEqual([a, c].sort());
      for (const m of (await liveMembers('drain')).values())
        expect(m.metadata.annotations?.[DRAINING_ANNOTATION]).toBeUndefined();
      await echoes(viaA, 'still through a');

      // Sticky sessions, two on each of `a` and `c` (once the gateway routes them alone), so both
      // stay equally busy: a tunnel and two sessions each. One of `a`'s is used again once it drains
      // (it moves); the other is not, and must not keep `a` from going once its tunnel ends.
      await waitFor('the gateway routing a and c only', async () => {
        for (let i = 0; i < 6; i++)
          if ((await getVia(port, echo.url)).headers[MEMBER_HEADER] === b) return false;
        return true;
      });
      // A session's member is a function of the member names alone.
      const table = new SessionTable([a, c]);
      const sessionsOn = (member: string) => {
        const out: string[] = [];
        for (let i = 0; out.length < 2; i++)
          if (table.names[table.lookup(sessionHash(`crawl-${i}`))] === member) out.push(`crawl-${i}`);
        return out;
      };
      const [movesFromA = '', staysOnA = ''] = sessionsOn(a);
      for (const [session, member] of [[movesFromA, a], [staysOnA, a], ...sessionsOn(c).map((x) => [x, c])]) {
        const r = await getVia(port, echo.url, { headers: { [SESSION_HEADER]: session as string } });
        expect(r.headers[MEMBER_HEADER]).toBe(member);
      }
      await waitFor('the gateway reporting a and c equally busy', async () => {
        const busy = await reported();
        return busy.get(a) === 3 && busy.get(c) === 3;
      });

      // Down by one more: both equally busy, `a` (first by age) is chosen and drained, not deleted.
      await scaleTo('drain', 1);
      let pool = await pass();
      const marked = (await liveMembers('drain')).get(a);
      expect(marked?.metadata.annotations?.[DRAINING_ANNOTATION]).toMatch(/ scale-down$/);
      expect(pool.status?.replicas).toBe(1);
      expect(pool.status?.members?.find((m) => m.name === a)?.drainingSince).toBeTruthy();
      expect(pool.status?.members?.find((m) => m.name === c)?.drainingSince).toBeUndefined();
      expect(scalingMessage(pool)).toContain(`draining ${a}`);

      // The gateway gives `a` nothing new once it has read the mark; its open tunnel goes on.
      await waitFor('the gateway giving a nothing new', async () => {
        for (let i = 0; i < 4; i++)
          if ((await getVia(port, echo.url)).headers[MEMBER_HEADER] !== c) return false;
        return true;
      });
      await echoes(viaA, 'a drains, its tunnel goes on');
      const moved = await getVia(port, echo.url, { headers: { [SESSION_HEADER]: movesFromA } });
      expect([moved.headers[MEMBER_HEADER], moved.headers[MOVED_HEADER]]).toEqual([c, a]);
      for (let i = 0; i < 4; i++) {
        const r = await getVia(port, echo.url);
        expect(r.status, r.body).toBe(200);
        expect(r.headers[MEMBER_HEADER]).toBe(c);
      }
      const fresh = await tunnelVia(port, tcp.target);
      sockets.push(fresh.socket);
      expect(fresh.headers[MEMBER_HEADER]).toBe(c);
      fresh.socket.destroy();

      // Passes made after the gateway has reported with the mark seen: `a` stays while its tunnel is open.
      const since = Date.parse(marked?.metadata.annotations?.[DRAINING_ANNOTATION]?.split(' ')[0] ?? '');
      await waitFor('a report made after the gateway saw the drain', async () =>
        (await readLoadReports(kc, NS, 'drain', signal)).some((r) => r.at > since + 3_000),
      );
      pool = await pass();
      pool = await pass();
      expect((await liveMembers('drain')).has(a)).toBe(true);
      expect(scalingMessage(pool)).toContain(`draining ${a}`);
      await echoes(viaA, 'a still drains');

      // The pool wants two again: `a` serves again instead of a new member being made.
      await scaleTo('drain', 2);
      pool = await pass();
      const back = await liveMembers('drain');
      expect([...back.keys()].sort()).toEqual([a, c].sort());
      expect(back.get(a)?.metadata.annotations?.[DRAINING_ANNOTATION]).toBeUndefined();
      expect(pool.status?.members?.every((m) => m.drainingSince === undefined)).toBe(true);
      expect(scalingMessage(pool)).not.toContain('draining');

      // And down again: `a` (a tunnel and a session, `c` now has more) drains again, then goes once
      // its tunnel ends, its unused session not counted; `c` serves on.
      await scaleTo('drain', 1);
      await pass();
      expect((await liveMembers('drain')).get(a)?.metadata.annotations?.[DRAINING_ANNOTATION]).toBeTruthy();
      viaA.destroy();
      pool = await waitFor(
        'a deleted once its tunnel ended',
        async () => {
          const p = await pass();
          return (await liveMembers('drain')).has(a) ? undefined : p;
        },
        30_000,
        250,
      );
      expect(pool.status?.members?.map((m) => m.name)).toEqual([c]);
      expect(scalingMessage(pool)).not.toContain('draining');
      await echoes(viaC, 'c serves on');
      expect(out()).not.toContain('cannot report the load');
    } finally {
      await tcp.close();
      await echo.close();
    }
  }, 120_000);

  it('deletes a draining member at spec.autoscale.drainTimeout though the gateways still report it busy', async () => {
    const created = await createPool('slow', {
      replicas: 1,
      gateway: { enabled: false },
      autoscale: { scaler: 'External', minReplicas: 0, maxReplicas: 2, drainTimeout: '30s' },
    });
    expect(created.status, created.body).toBe(201);
    const ctl = new KubePoolController({
      kubeConfig: await operatorKubeConfig('slow'),
      namespace: NS,
      now: () => now,
    });
    const pass = () => passOver(ctl, 'slow');
    const busy = (member: string) =>
      writeLoadReport(
        kc,
        { namespace: NS, pool: 'slow', replica: 'gw-a' },
        { at: now, activeConnections: 1, requestsPerSecond: 0, waiting: 0, busy: { [member]: 1 } },
        signal,
      );
    await pass();
    const [member = ''] = [...(await liveMembers('slow')).keys()];
    await markReady(member);
    await busy(member);
    await scaleTo('slow', 0);
    let pool = await pass();
    expect((await liveMembers('slow')).get(member)?.metadata.annotations?.[DRAINING_ANNOTATION]).toBe(
      `${new Date(now).toISOString()} scale-down`,
    );
    expect(scalingMessage(pool)).toContain(`draining ${member}`);
    // Still busy, just before the timeout: it stays.
    now += 29_000;
    await busy(member);
    pool = await pass();
    expect((await liveMembers('slow')).has(member)).toBe(true);
    // At the timeout it goes, busy or not.
    now += 1_000;
    await busy(member);
    pool = await pass();
    expect((await liveMembers('slow')).has(member)).toBe(false);
    expect(pool.status?.members).toEqual([]);
    expect(scalingMessage(pool)).not.toContain('draining');
  });
});
