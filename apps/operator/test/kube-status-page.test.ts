import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeControlPlane, KubeUser } from '@egress-proxies/testenv-kube';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { startClusterStatusPage } from '../src/cluster/cluster-status-page.js';
import { createOperatorLogger } from '../src/domain/logger.js';
import type { StatusPageData } from '../src/status-page/page-data.js';
import type { RunningStatusPage } from '../src/status-page/status-page-server.js';
import { CONTROL_PLANE_BUDGET_MS, startClusterWithCrds, waitFor } from './support/cluster.js';
import { chartNotes, ensureHelm } from './support/helm.js';
import { MAIN, operatorRunArgs } from './support/run-cli.js';

// The status page as the chart runs it in the cluster, against the real kube-apiserver: the
// operator's rights are the chart's rendered ClusterRoles and nothing more, readers are bound by
// the chart's reader ClusterRole, and every request's token is decided by the API server
// (TokenReview, then SubjectAccessReview).
const ROOT = join(__dirname, '..', '..', '..');
const SYSTEM = 'egress-proxies-system';
const NS = 'team-page';
const base = '/apis/egress-proxies.dev/v1alpha1';
let cp: KubeControlPlane;
let page: RunningStatusPage | undefined;
let reader: KubeUser;
let outsider: KubeUser;
let operator: KubeUser;
const dir = mkdtempSync(join(tmpdir(), 'ep-kube-page-'));
let run: ChildProcess | undefined;
const logged: string[] = [];

type Doc = {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: unknown;
  roleRef?: unknown;
  subjects?: unknown;
  spec?: { type?: string; ports?: unknown; template?: { spec: { containers: Container[] } } };
};
type Container = { args: string[]; ports: unknown[] };

/** The chart as `helm template egress-proxies -n egress-proxies-system` renders it with `sets`. */
function renderChart(sets: string[], json: string[] = []): Doc[] {
  const r = spawnSync(
    ensureHelm(),
    [
      'template',
      'egress-proxies',
      join(ROOT, 'chart'),
      '-n',
      SYSTEM,
      ...sets.flatMap((x) => ['--set', x]),
      ...json.flatMap((x) => ['--set-json', x]),
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`helm template failed: ${r.stderr}`);
  return yamlObjects(r.stdout);
}

const yamlObjects = (text: string) =>
  parseAllDocuments(text)
    .map((d) => d.toJS() as Doc)
    .filter(Boolean);

function kustomize(path: string): Doc[] {
  const r = spawnSync('kubectl', ['kustomize', join(ROOT, path)], { encoding: 'utf8' });
  if (r.error || r.status !== 0) throw new Error(`kubectl kustomize ${path} failed: ${r.error ?? r.stderr}`);
  return yamlObjects(r.stdout);
}

/** Creates a rendered cluster-scoped RBAC object as the chart would. */
async function apply(doc: Doc) {
  const plural = doc.kind === 'ClusterRole' ? 'clusterroles' : 'clusterrolebindings';
  const r = await cp.request('POST', `/apis/rbac.authorization.k8s.io/v1/${plural}`, doc);
  if (r.status !== 201) throw new Error(`creating ${doc.kind} ${doc.metadata.name}: ${r.status} ${r.body}`);
}

beforeAll(async () => {
  cp = await startClusterWithCrds();
  await cp.ensureNamespace(SYSTEM);
  await cp.ensureNamespace(NS);
  const docs = renderChart(
    ['statusPage.enabled=true'],
    [`statusPage.readers=[{"kind":"ServiceAccount","name":"page-reader","namespace":"${NS}"}]`],
  );
  const clusterWide = docs.filter((d) => d.kind === 'ClusterRole' || d.kind === 'ClusterRoleBinding');
  // The operator's own ClusterRole, the review rights and the reader role with its binding.
  expect(clusterWide.map((d) => `${d.kind}/${d.metadata.name}`).sort()).toEqual([
    'ClusterRole/egress-proxies-operator',
    'ClusterRole/egress-proxies-operator-status-page-auth',
    'ClusterRole/egress-proxies-status-page-reader',
    'ClusterRoleBinding/egress-proxies-operator',
    'ClusterRoleBinding/egress-proxies-operator-status-page-auth',
    'ClusterRoleBinding/egress-proxies-status-page-reader',
  ]);
  // The ServiceAccounts the bindings name (a token each from the TokenRequest API); no other rights.
  operator = await cp.createLimitedUser(SYSTEM, 'egress-proxies-operator', []);
  reader = await cp.createLimitedUser(NS, 'page-reader', []);
  outsider = await cp.createLimitedUser(NS, 'outsider', []);
  for (const d of clusterWide) await apply(d);

  const pool = await cp.request('POST', `${base}/namespaces/${NS}/proxypools`, {
    apiVersion: 'egress-proxies.dev/v1alpha1',
    kind: 'ProxyPool',
    metadata: { name: 'crawl' },
    spec: { replicas: 1, template: { provider: 'local' } },
  });
  if (pool.status !== 201) throw new Error(`creating the pool: ${pool.body}`);
  await setMembers([{ name: 'crawl-a', ip: '10.0.0.7', port: 3128, egressIP: '203.0.113.7', ready: true }]);

  const kc = new KubeConfig();
  kc.loadFromString(cp.kubeconfig(operator));
  const log = createOperatorLogger('debug', { write: (line: string) => void logged.push(line) });
  // Short verdict and recheck times, so a revoked reader's stream ends within the test.
  page = await startClusterStatusPage({
    kubeConfig: kc,
    host: '127.0.0.1',
    port: 0,
    pollMs: 200,
    authCacheMs: 200,
    recheckStreamsMs: 200,
    logger: log,
  });
}, CONTROL_PLANE_BUDGET_MS);

afterAll(async () => {
  // Still running: neither exited nor ended by a signal (waiting on a dead process's exit hangs).
  if (run && run.exitCode === null && run.signalCode === null) {
    const exited = new Promise((r) => run?.once('exit', r));
    run.kill('SIGTERM');
    await exited;
  }
  await page?.close();
  await cp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function setMembers(members: object[]) {
  const r = await cp.request(
    'PATCH',
    `${base}/namespaces/${NS}/proxypools/crawl/status`,
    { status: { ready: members.length, members } },
    { contentType: 'application/merge-patch+json' },
  );
  if (r.status !== 200) throw new Error(`patching the pool status: ${r.status} ${r.body}`);
}

const get = (path: string, token?: string, method = 'GET', at = page?.url) =>
  fetch(`${at}${path}`, { method, headers: token ? { authorization: `Bearer ${token}` } : {} });

/**
 * `run` as `user` with the status page on, as the chart runs it (an empty providers config, no
 * leader election, any free ports); its argv after node.
 */
function runArgs(user: KubeUser, installation: string): string[] {
  return operatorRunArgs({ cp, dir, installation, user }, [
    '--no-leader-election',
    '--http-bind-address',
    '127.0.0.1:0',
    '--status-page-address',
    '127.0.0.1:0',
    '--status-page-auth',
    'kubernetes',
  ]);
}

describe('the status page in the cluster', () => {
  it('answers 401 without a token and with one the API server does not accept, 403 to a user without the reader role', async () => {
    const none = await get('api/status');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect((await get('api/status', 'not-a-token')).status).toBe(401);
    const forbidden = await get('api/status', outsider.token);
    expect(forbidden.status).toBe(403);
    expect(await forbidden.text()).toContain(`system:serviceaccount:${NS}:outsider may not read`);
    expect((await get('api/events', outsider.token)).status).toBe(403);
    // The page itself holds no data: it is served to anyone, and asks for a token.
    const signin = await get('');
    expect(signin.status).toBe(200);
    const signinText = await signin.text();
    expect(signinText).toContain('Bearer token');
    expect(signinText).not.toContain(NS);
  });

  it('serves the page and the pools to a bound reader, read-only, and updates the live stream', async () => {
    const html = await get('', reader.token);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toContain('text/html');
    expect((await get('api/status', reader.token, 'HEAD')).status).toBe(200);
    expect((await get('api/status', reader.token, 'POST')).status).toBe(405);
    const data = (await (await get('api/status', reader.token)).json()) as StatusPageData;
    expect(data.pools).toEqual([
      expect.objectContaining({
        pool: `${NS}/crawl`,
        desired: 1,
        ready: 1,
        members: [
          {
            name: 'crawl-a',
            address: '10.0.0.7:3128',
            seenEgress: '203.0.113.7',
            ready: true,
            cooledDown: false,
          },
        ],
      }),
    ]);

    // The live updates: the stream's first event is the pools now, a new member comes as another.
    const ac = new AbortController();
    const events = await fetch(`${page?.url}api/events`, {
      headers: { authorization: `Bearer ${reader.token}` },
      signal: ac.signal,
    });
    expect(events.status).toBe(200);
    const body = events.body?.getReader();
    let text = '';
    const decoder = new TextDecoder();
    const next = async () => {
      const chunk = await body?.read();
      text += decoder.decode(chunk?.value ?? new Uint8Array());
    };
    await next();
    expect(text).toContain('203.0.113.7');
    await setMembers([
      { name: 'crawl-a', ip: '10.0.0.7', port: 3128, egressIP: '203.0.113.7', ready: true },
      { name: 'crawl-b', ip: '10.0.0.8', port: 3128, egressIP: '203.0.113.8', ready: false },
    ]);
    await waitFor('the new member on the stream', async () => {
      await next();
      return text.includes('203.0.113.8');
    });
    ac.abort();
  });

  it("shows until when a cooled-down member's cooldown lasts, from the mark a gateway put on its Proxy", async () => {
    const until = new Date(Date.now() + 10 * 60_000).toISOString();
    const proxy = await cp.request('POST', `${base}/namespaces/${NS}/proxies`, {
      apiVersion: 'egress-proxies.dev/v1alpha1',
      kind: 'Proxy',
      metadata: {
        name: 'crawl-c',
        labels: { 'egress-proxies.dev/pool': 'crawl' },
        annotations: { 'egress-proxies.dev/cooled-down': `${new Date().toISOString()} 429 ${until}` },
      },
      spec: { provider: 'local' },
    });
    expect(proxy.status, proxy.body).toBe(201);
    await setMembers([
      { name: 'crawl-a', ip: '10.0.0.7', port: 3128, egressIP: '203.0.113.7', ready: true },
      { name: 'crawl-c', ip: '10.0.0.9', port: 3128, egressIP: '203.0.113.9', ready: true, cooledDown: true },
    ]);
    const member = await waitFor('the cooled-down member on the page', async () => {
      const data = (await (await get('api/status', reader.token)).json()) as StatusPageData;
      return data.pools[0]?.members.find((m) => m.name === 'crawl-c' && m.cooledDown);
    });
    expect(member.cooledDownUntil).toBe(until);
  });

  it("ends a reader's open live stream once their binding is deleted", async () => {
    const late = await cp.createLimitedUser(NS, 'late-reader', []);
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'late-reader' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'egress-proxies-status-page-reader',
      },
      subjects: [{ kind: 'ServiceAccount', name: 'late-reader', namespace: NS }],
    };
    await apply(binding as Doc);
    const events = await waitFor('the late reader let in', async () => {
      const r = await fetch(`${page?.url}api/events`, { headers: { authorization: `Bearer ${late.token}` } });
      if (r.status === 200) return r;
      await r.body?.cancel();
      return undefined;
    });
    const stream = events.body?.getReader();
    expect((await stream?.read())?.done).toBe(false);
    const del = await cp.request(
      'DELETE',
      '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/late-reader',
    );
    expect(del.status, del.body).toBe(200);
    let ended = false;
    void (async () => {
      for (;;) if ((await stream?.read())?.done) break;
      ended = true;
    })();
    await waitFor('the stream ended by the server', () => ended, 20_000, 200);
    expect((await get('api/status', late.token)).status).toBe(403);
  });

  it('never logs a token', () => {
    const all = logged.join('');
    expect(all).toContain('status page listening');
    for (const t of [reader.token, outsider.token, 'not-a-token']) expect(all).not.toContain(t);
  });

  it("config/with-status-page adds the chart's status page objects and flags, setting for setting", () => {
    const id = (d: Doc) => `${d.kind}/${d.metadata.name}`;
    const added = (on: Doc[], off: Doc[]) => on.filter((d) => !off.some((o) => id(o) === id(d)));
    const chartOn = renderChart(['statusPage.enabled=true']);
    const chartOff = renderChart([]);
    const kustOn = kustomize('config/with-status-page');
    const kustOff = kustomize('config/default');
    const chartNew = added(chartOn, chartOff);
    const kustNew = added(kustOn, kustOff);
    expect(kustNew.map(id).sort()).toEqual(chartNew.map(id).sort());
    // What matters of each: the rights, who holds them, the Service's port (names and labels differ by design).
    const what = (d: Doc) => ({
      rules: d.rules,
      roleRef: d.roleRef,
      subjects: (d.subjects as { namespace?: string }[] | undefined)?.map((s) => ({
        ...s,
        namespace: SYSTEM,
      })),
      type: d.spec?.type,
      ports: d.spec?.ports,
    });
    for (const d of kustNew)
      expect(what(d), id(d)).toEqual(what(chartNew.find((c) => id(c) === id(d)) as Doc));
    const container = (docs: Doc[]) =>
      docs.find((d) => d.kind === 'Deployment')?.spec?.template?.spec.containers[0] as Container;
    const newArgs = (on: Doc[], off: Doc[]) =>
      container(on).args.filter((a) => !container(off).args.includes(a));
    expect(newArgs(kustOn, kustOff)).toEqual(newArgs(chartOn, chartOff));
    expect(newArgs(kustOn, kustOff)).toEqual([
      '--status-page-address=0.0.0.0:8443',
      '--status-page-auth=kubernetes',
    ]);
    expect(container(kustOn).ports).toEqual(container(chartOn).ports);
  });

  it('tells in its NOTES how to reach the page, naming the Service, its port and the reader role', () => {
    const notes = (...sets: string[]) => chartNotes(dir, 'egress-proxies', SYSTEM, sets);
    expect(notes()).not.toContain('Status page');
    const on = notes('--set', 'statusPage.enabled=true', '--set', 'statusPage.port=9443');
    expect(on).toContain(`kubectl -n ${SYSTEM} port-forward svc/egress-proxies-status-page 9443`);
    expect(on).toContain('ClusterRole egress-proxies-status-page-reader');
    expect(on).toContain('localhost:9443/api/status');
  });

  it('stops `run` at start, saying why, when the operator may not read the pools for the page', () => {
    const r = spawnSync(process.execPath, runArgs(outsider, 'page-denied'), {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.signal, 'run must exit on its own').toBeNull();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('status page: cannot read the ProxyPools and their Proxies');
    expect(r.stderr).toContain('forbidden');
    expect(r.stderr + r.stdout).not.toContain(outsider.token);
  });

  it('refuses to start `run` with the page on and no authentication, saying what to add', () => {
    const r = spawnSync(process.execPath, [MAIN, 'run', '--status-page-address', '0.0.0.0:8443'], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('never served without authentication: add --status-page-auth kubernetes');
  });

  it('is served by `run` with the flags the chart passes, as the operator with only its chart rights', async () => {
    run = spawn(process.execPath, runArgs(operator, 'page'), { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    run.stdout?.on('data', (c) => {
      out += c;
    });
    run.stderr?.on('data', (c) => {
      out += c;
    });
    const url = await waitFor(
      'the status page listening',
      () => {
        const line = out.split('\n').find((l) => l.includes('"status page listening"'));
        return line ? (JSON.parse(line) as { url: string }).url : undefined;
      },
      60_000,
      200,
    );
    expect((await get('api/status', undefined, 'GET', url)).status).toBe(401);
    expect((await get('api/status', outsider.token, 'GET', url)).status).toBe(403);
    const ok = await get('api/status', reader.token, 'GET', url);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as StatusPageData).pools.map((p) => p.pool)).toEqual([`${NS}/crawl`]);
    const exited = new Promise<number | null>((r) => run?.once('exit', r));
    run.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (const t of [reader.token, outsider.token, operator.token]) expect(out).not.toContain(t);
  });

  it('stops cleanly on a SIGTERM that comes while it is still starting (the page up, the operator not yet)', async () => {
    const early = spawn(process.execPath, runArgs(operator, 'early-stop'), {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const exited = new Promise<number | null>((r) => early.once('exit', r));
    early.stderr?.on('data', (c) => {
      out += c;
    });
    early.stdout?.on('data', (c) => {
      out += c;
      // At once: the operator starts after the page, so the signal lands in its start.
      if (!early.killed && out.includes('"status page listening"')) early.kill('SIGTERM');
    });
    // Before, the signal's default action ended the process (no exit code, nothing closed).
    expect(await exited).toBe(0);
    expect(out).toContain('"stopping"');
  });
});
