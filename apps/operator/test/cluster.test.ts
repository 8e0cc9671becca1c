import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { instanceName } from '@egress-proxies/contract';
import { freePort, type KubeControlPlane } from '@egress-proxies/testenv-kube';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { startTracing } from '../src/telemetry/tracing.js';
import { CONTROL_PLANE_BUDGET_MS, startClusterWithCrds, waitFor } from './support/cluster.js';
import { startEchoServer, startForwardProxy } from './support/forward-proxy.js';
import {
  createProxy,
  getProxy,
  type OperatorHarness,
  proxiesPath,
  ReferenceBackends,
  startTestOperator,
} from './support/harness.js';
import { operatorRunArgs } from './support/run-cli.js';

const NS = 'team-b';
let cp: KubeControlPlane;
let fwd: Awaited<ReturnType<typeof startForwardProxy>>;
let echo: Awaited<ReturnType<typeof startEchoServer>>;
const spans = new InMemorySpanExporter();
let tracing: { shutdown(): Promise<void> } | undefined;
const placement = { zone: 'alpha', machineType: 'small', image: 'debian-12' };

beforeAll(async () => {
  tracing = startTracing({ processors: [new SimpleSpanProcessor(spans)] });
  cp = await startClusterWithCrds();
  await cp.ensureNamespace(NS);
  await cp.ensureNamespace('egress-proxies-system');
  fwd = await startForwardProxy();
  echo = await startEchoServer();
}, CONTROL_PLANE_BUDGET_MS);

afterAll(async () => {
  await tracing?.shutdown();
  await fwd?.stop();
  await echo?.stop();
  await cp?.stop();
});

const post = (name: string, spec: unknown) =>
  cp.request('POST', proxiesPath(NS), {
    apiVersion: 'egress-proxies.dev/v1alpha1',
    kind: 'Proxy',
    metadata: { name },
    spec,
  });

describe('the Proxy CRD on the API server', () => {
  it('rejects bad specs with messages naming the field', async () => {
    const cases: [unknown, string][] = [
      [
        { provider: 'ref', port: 70000 },
        'spec.port: Invalid value: 70000: spec.port in body should be less than or equal to 65535',
      ],
      [{ mode: 'Managed' }, 'spec.provider is required when mode is Managed'],
      [{ mode: 'External' }, 'spec.address (host:port) is required when mode is External'],
      [
        { provider: 'ref', cloudInit: { inline: 'a', secretRef: { name: 's' } } },
        'exactly one of cloudInit.inline and cloudInit.secretRef must be set',
      ],
      [{ provider: 'Bad_Name' }, 'spec.provider in body should match'],
      [{ provider: 'ref', mode: 'Magic' }, 'Unsupported value: "Magic"'],
      [{ provider: 'ref', probe: { target: 'ftp://x' } }, 'spec.probe.target in body should match'],
    ];
    for (const [i, [spec, message]] of cases.entries()) {
      const r = await post(`bad-${i}`, spec);
      expect(r.status, JSON.stringify(spec)).toBe(422);
      expect(r.json<{ message: string }>().message).toContain(message);
    }
  });

  it('fills the defaults on a valid spec', async () => {
    const r = await post('defaults', {
      provider: 'ref',
      probe: { target: 'http://127.0.0.1/ip' },
      cloudInit: { secretRef: { name: 's' } },
    });
    expect(r.status).toBe(201);
    const spec = r.json<{ spec: Record<string, unknown> }>().spec;
    expect(spec).toEqual({
      mode: 'Managed',
      provider: 'ref',
      port: 3128,
      probe: { target: 'http://127.0.0.1/ip', interval: '60s', timeout: '10s', retries: 2 },
      cloudInit: { secretRef: { name: 's', key: 'user-data' } },
    });
    expect((await cp.request('DELETE', proxiesPath(NS, 'defaults'))).status).toBe(200);
  });
});

describe('leader election, metrics and tracing', () => {
  let a: OperatorHarness | undefined;
  let b: OperatorHarness | undefined;
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  it('runs one leader of two; the other takes over when it stops', async () => {
    const backends = new ReferenceBackends();
    const lease = { leaderElection: true, leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 200 };
    a = await startTestOperator(
      cp,
      backends,
      { proxyPort: fwd.port },
      { ...lease, identity: 'op-a', http: { host: '127.0.0.1', port: 0 } },
    );
    b = await startTestOperator(cp, backends, { proxyPort: fwd.port }, { ...lease, identity: 'op-b' });
    await waitFor('a leader', () => a!.op.isLeader() || b!.op.isLeader());
    await new Promise((r) => setTimeout(r, 600));
    expect([a.op.isLeader(), b.op.isLeader()].filter(Boolean)).toHaveLength(1);
    const leader = a.op.isLeader() ? a : b;
    const follower = leader === a ? b : a;
    const l = await cp.request(
      'GET',
      '/apis/coordination.k8s.io/v1/namespaces/egress-proxies-system/leases/egress-proxies-operator',
    );
    expect(l.json<{ spec: { holderIdentity: string } }>().spec.holderIdentity).toBe(leader.op.identity);

    await createProxy(cp, NS, 'px-lead', {
      provider: 'ref',
      placement,
      probe: { target: echo.url, interval: '5s', timeout: '2s', retries: 0 },
    });
    await waitFor(
      'px-lead Ready',
      async () => (await getProxy(cp, NS, 'px-lead'))?.status?.phase === 'Ready',
    );

    // The leader's spans: a reconcile, provider.create under it, the provider's own spans under that.
    const finished = spans.getFinishedSpans();
    const create = finished.find((s) => s.name === 'provider.create');
    expect(create).toBeDefined();
    const parentOf = (s: (typeof finished)[number]) => s.parentSpanContext?.spanId;
    const reconcile = finished.find((s) => s.spanContext().spanId === parentOf(create!));
    expect(reconcile?.name).toBe('reconcile');
    expect(reconcile?.attributes['proxy.name']).toBe('px-lead');
    const children = finished.filter((s) => parentOf(s) === create!.spanContext().spanId).map((s) => s.name);
    expect(children).toEqual(expect.arrayContaining(['reference.define', 'reference.start']));

    if (a.op.httpPort) {
      const base = `http://127.0.0.1:${a.op.httpPort}`;
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      const text = await (await fetch(`${base}/metrics`)).text();
      expect(text).toContain('leader_election_master_status{name="egress-proxies-operator"}');
      if (leader === a) {
        expect(text).toMatch(
          /controller_runtime_reconcile_total\{controller="proxy",result="success",outcome="ok"\} \d+/,
        );
        expect(text).toMatch(
          /egress_proxies_provider_operation_duration_seconds_count\{provider="ref",operation="create"\} 1/,
        );
        expect(text).toMatch(/egress_proxies_proxies\{phase="Ready"\} 1/);
        expect(text).toMatch(/egress_proxies_probe_duration_seconds_count\{result="ok"\} \d+/);
      }
    }

    await leader.stop();
    if (leader === a) a = undefined;
    else b = undefined;
    await waitFor('the follower takes over', () => follower.op.isLeader(), 10_000);
    const l2 = await cp.request(
      'GET',
      '/apis/coordination.k8s.io/v1/namespaces/egress-proxies-system/leases/egress-proxies-operator',
    );
    expect(l2.json<{ spec: { holderIdentity: string } }>().spec.holderIdentity).toBe(follower.op.identity);
    // The new leader reconciles: a delete goes through it.
    expect((await cp.request('DELETE', proxiesPath(NS, 'px-lead'))).status).toBe(200);
    await waitFor('px-lead gone', async () => (await getProxy(cp, NS, 'px-lead')) === undefined);
    expect(
      backends
        .backend('ref')
        .domains()
        .some((d) => d.name === instanceName(NS, 'px-lead')),
    ).toBe(false);
  });
});

describe('least-privilege RBAC', () => {
  let op: OperatorHarness | undefined;
  afterAll(async () => {
    await op?.stop();
  });

  it('the rendered RBAC is all the operator needs: reconcile, events, secrets, health, lease, installation id', async () => {
    const r = spawnSync('kubectl', ['kustomize', 'config/default'], {
      cwd: join(__dirname, '..', '..', '..'),
      encoding: 'utf8',
    });
    if (r.error || r.status !== 0)
      throw new Error(`kubectl kustomize is needed here and failed: ${r.error?.message ?? r.stderr}`);
    const wanted = new Set(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);
    const paths: Record<string, string> = {
      ServiceAccount: '/api/v1/namespaces/egress-proxies-system/serviceaccounts',
      ClusterRole: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      ClusterRoleBinding: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
      Role: '/apis/rbac.authorization.k8s.io/v1/namespaces/egress-proxies-system/roles',
      RoleBinding: '/apis/rbac.authorization.k8s.io/v1/namespaces/egress-proxies-system/rolebindings',
    };
    for (const doc of parseAllDocuments(r.stdout)) {
      const o = doc.toJS() as { kind: string };
      if (!wanted.has(o.kind)) continue;
      const res = await cp.request('POST', paths[o.kind]!, o);
      expect(res.status, `${o.kind}: ${res.body}`).toBe(201);
    }
    const tr = await cp.request(
      'POST',
      '/api/v1/namespaces/egress-proxies-system/serviceaccounts/egress-proxies-operator/token',
      { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
    );
    expect(tr.status).toBe(201);
    const user = {
      username: 'system:serviceaccount:egress-proxies-system:egress-proxies-operator',
      token: tr.json<{ status: { token: string } }>().status.token,
    };
    const asOperator = { ...cp, kubeconfig: () => cp.kubeconfig(user) } as KubeControlPlane;
    const backends = new ReferenceBackends();
    // No installation id given: it is read from the kube-system namespace with the operator's rights.
    op = await startTestOperator(
      asOperator,
      backends,
      { proxyPort: fwd.port },
      {
        installation: undefined,
        leaderElection: true,
        identity: 'rbac-op',
        leaseName: 'rbac-lease',
        retryPeriodMs: 200,
      },
    );
    const ks = await cp.request('GET', '/api/v1/namespaces/kube-system');
    expect(op.op.installation).toBe(ks.json<{ metadata: { uid: string } }>().metadata.uid);
    await waitFor('leader', () => op!.op.isLeader());
    const secret = await cp.request('POST', `/api/v1/namespaces/${NS}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'rbac-ci' },
      stringData: { 'user-data': '#cloud-config\n' },
    });
    expect(secret.status).toBe(201);
    await createProxy(cp, NS, 'px-rbac', {
      provider: 'ref',
      placement,
      cloudInit: { secretRef: { name: 'rbac-ci' } },
      probe: { target: echo.url, interval: '5s', timeout: '2s', retries: 0 },
    });
    await waitFor(
      'px-rbac Ready',
      async () => (await getProxy(cp, NS, 'px-rbac'))?.status?.phase === 'Ready',
    );
    const events = await cp.request('GET', `/api/v1/namespaces/${NS}/events`);
    expect(events.body).toContain('px-rbac');
    await waitFor(
      'ProviderHealth ref',
      async () =>
        (await cp.request('GET', '/apis/egress-proxies.dev/v1alpha1/providerhealths/ref')).status === 200,
    );
    expect((await cp.request('DELETE', proxiesPath(NS, 'px-rbac'))).status).toBe(200);
    await waitFor('px-rbac gone', async () => (await getProxy(cp, NS, 'px-rbac')) === undefined);
    // And nothing more: the operator cannot list Secrets or touch Pods.
    const asUser = { user };
    expect((await cp.request('GET', `/api/v1/namespaces/${NS}/secrets`, undefined, asUser)).status).toBe(403);
    expect((await cp.request('GET', `/api/v1/namespaces/${NS}/pods`, undefined, asUser)).status).toBe(403);
  });
});

describe('two operator processes', () => {
  const children: ChildProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'ep-procs-'));
  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const leaderGauge = async (port: number) => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    return Number(
      /^leader_election_master_status\{name="egress-proxies-operator"\} (\d+)/m.exec(text)?.[1] ?? 'NaN',
    );
  };

  it('elects one leader; when it exits the other takes over', async () => {
    const ports = [await freePort(), await freePort()];
    const start = (port: number) => {
      const c = spawn(
        process.execPath,
        operatorRunArgs({ cp, dir, installation: 'procs' }, [
          '--operator-namespace',
          'egress-proxies-system',
          '--lease-name',
          'procs-lease',
          '--http-bind-address',
          `127.0.0.1:${port}`,
          '--log-level',
          'warn',
        ]),
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      children.push(c);
      return c;
    };
    const procs = ports.map(start);
    for (const port of ports) {
      await waitFor(
        `operator on ${port} ready`,
        async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200,
        30_000,
        200,
      );
    }
    await waitFor(
      'one leader',
      async () => (await leaderGauge(ports[0]!)) + (await leaderGauge(ports[1]!)) === 1,
      20_000,
      200,
    );
    const leaderIndex = (await leaderGauge(ports[0]!)) === 1 ? 0 : 1;
    const other = ports[1 - leaderIndex]!;
    const exited = new Promise<number | null>((r) => procs[leaderIndex]!.once('exit', (code) => r(code)));
    procs[leaderIndex]!.kill('SIGTERM');
    expect(await exited).toBe(0);
    await waitFor('the other process leads', async () => (await leaderGauge(other)) === 1, 20_000, 200);
  });
});
