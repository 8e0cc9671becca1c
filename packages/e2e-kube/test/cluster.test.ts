import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type EchoServer, startEchoServer } from '@egress-proxies/e2e-vm';
import {
  type Collector,
  descendantsOf,
  findSpanChain,
  type KubeCluster,
  POD_CIDR,
  startCollector,
  startKubeCluster,
} from '@egress-proxies/testenv-kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  deploymentReady,
  describePods,
  getJson,
  gone,
  type KubeTimings,
  kubeTools,
  leaseHeldBy,
  listPods,
  mustRequest,
  type Pod,
  podHttpGet,
  qualifiedImage as qualified,
  readE2eKubeEnv,
  runPod,
  waitForProgress,
} from '../src/index.js';

// The deploy path a user takes, on a real one-node cluster built here: the operator image (from
// the repository Dockerfile) installed with kustomize and with Helm, a kubernetes-type Proxy whose
// hardened Squid Pod runs under the restricted Pod Security Standard, clients in and outside the
// allowed range, deletion through the finalizer and through the garbage collector, an External
// Proxy, a Helm upgrade that changes a CRD under a running operator, and the operator's spans as
// a real collector stored them.

const env = readE2eKubeEnv();
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const SQUID_IMAGE = 'egress-proxies/squid:bookworm';
const OPERATOR_REPO = 'egress-proxies/operator';
const OPERATOR_TAG = 'dev';
const KUSTOMIZE_NS = 'egress-proxies-system';
const HELM_NS = 'ep-operator';
const RELEASE = 'ep';
const PROXY_NS = 'ep-proxies';
const CLIENT_NS = 'ep-clients';
const PORT = 3128;
const PROXIES = `/apis/egress-proxies.dev/v1alpha1/namespaces/${PROXY_NS}/proxies`;
const POOLS = `/apis/egress-proxies.dev/v1alpha1/namespaces/${PROXY_NS}/proxypools`;
const POOL = 'crawl';
const STEP_MS = 35 * 60_000;

const kustomizeImage = (() => {
  const doc = parse(readFileSync(join(ROOT, 'config', 'manager', 'manager.yaml'), 'utf8')) as {
    spec: { template: { spec: { containers: { image: string }[] } } };
  };
  return doc.spec.template.spec.containers[0]?.image ?? '';
})();

let cluster: KubeCluster;
let tools: ReturnType<typeof kubeTools>;
let echo: EchoServer;
let collector: Collector;
const startedAt = Date.now();
const timings: Partial<KubeTimings> = {};
const since = (t: number) => (Date.now() - t) / 1000;

interface PoolObject {
  metadata: { name: string; uid: string };
  status?: {
    ready?: number;
    gateway?: string;
    members?: { name: string; ready: boolean }[];
    conditions?: { type: string; status: string; reason?: string }[];
  };
}

interface ProxyObject {
  metadata: { name: string; uid: string; finalizers?: string[] };
  status?: { phase?: string; ip?: string; egressIP?: string; message?: string };
}

function proxyDoc(name: string, spec: Record<string, unknown>) {
  return {
    apiVersion: 'egress-proxies.dev/v1alpha1',
    kind: 'Proxy',
    metadata: { name, namespace: PROXY_NS },
    spec: { ...spec, probe: { target: echo.url, interval: '5s', timeout: '5s', retries: 1 } },
  };
}

function proxyReady(name: string): Promise<ProxyObject> {
  return waitForProgress(`Proxy ${name} Ready`, async () => {
    const p = await getJson<ProxyObject>(cluster, `${PROXIES}/${name}`);
    const s = p?.status;
    return {
      ...(s?.phase === 'Ready' ? { done: p } : {}),
      progress: `${s?.phase ?? 'no status'}: ${s?.message ?? ''}`,
    };
  });
}

/** The Squid Pod the kubernetes provider made for a Proxy (annotated with its namespace/name). */
async function squidPodOf(name: string): Promise<Pod | undefined> {
  return (await listPods(cluster, PROXY_NS)).find(
    (p) => p.metadata.annotations?.['egress-proxies.dev/proxy'] === `${PROXY_NS}/${name}`,
  );
}

const operatorValues = () => ({
  image: { repository: OPERATOR_REPO, tag: OPERATOR_TAG, pullPolicy: 'IfNotPresent' },
  providerRbac: { kubernetes: true },
  operator: { otlpEndpoint: collector.endpoint, healthInterval: '10s', gcInterval: '30s' },
  providers: [
    {
      name: 'in-cluster',
      type: 'kubernetes',
      // Every Pod of the cluster may use the proxies; the node's own address may not.
      kubernetes: { image: SQUID_IMAGE, allowedSourceCIDRs: [POD_CIDR] },
    },
  ],
});

beforeAll(async () => {
  mkdirSync(env.workDir, { recursive: true });
  const t = Date.now();
  cluster = await startKubeCluster({
    images: [
      { archive: env.images.squid, names: [qualified(SQUID_IMAGE)] },
      {
        archive: env.images.operator,
        names: [qualified(`${OPERATOR_REPO}:${OPERATOR_TAG}`), qualified(kustomizeImage)],
      },
    ],
  });
  timings.clusterStart = since(t);
  tools = kubeTools({
    helm: env.helm,
    kubectl: env.kubectl,
    kubeconfigText: cluster.kubeconfig(),
    dir: env.workDir,
  });
  echo = await startEchoServer(cluster.hostIP);
  collector = await startCollector({ host: cluster.hostIP, dir: join(env.workDir, 'collector') });
}, STEP_MS);

afterAll(async () => {
  if (cluster) {
    const logs = cluster.daemonLogs(200);
    for (const [name, text] of Object.entries(logs)) writeFileSync(join(env.workDir, `${name}.log`), text);
  }
  await collector?.stop();
  await echo?.close();
  await cluster?.stop();
}, 5 * 60_000);

describe('the operator installed with kustomize (config/default)', () => {
  it(
    'becomes Ready, takes the Lease and serves /metrics; `kubectl delete -k` removes it',
    async () => {
      const t = Date.now();
      await tools.kubectl(['apply', '-k', join(ROOT, 'config', 'default')]);
      const pods = await deploymentReady(cluster, KUSTOMIZE_NS, 'egress-proxies-operator');
      expect(pods).toHaveLength(2);
      const leader = await leaseHeldBy(cluster, KUSTOMIZE_NS, 'egress-proxies-operator', pods);
      timings.kustomizeReady = since(t);
      const metrics = await podHttpGet(cluster, leader, 8080, '/metrics');
      expect(metrics).toMatch(/^egress_proxies_proxies\b/m);
      await tools.kubectl(['delete', '-k', join(ROOT, 'config', 'default'), '--wait=true', '--timeout=20m']);
      await gone(cluster, `namespace ${KUSTOMIZE_NS}`, `/api/v1/namespaces/${KUSTOMIZE_NS}`);
    },
    STEP_MS,
  );
});

describe('the operator installed with Helm, on a kubernetes-type Proxy', () => {
  let leaderPod: Pod;
  let squidIP = '';

  it(
    '`helm install` brings the operator Ready; it takes the Lease and serves /metrics',
    async () => {
      const t = Date.now();
      const values = join(env.workDir, 'values.yaml');
      writeFileSync(values, stringify(operatorValues()));
      await tools.helm([
        'install',
        RELEASE,
        join(ROOT, 'chart'),
        '-n',
        HELM_NS,
        '--create-namespace',
        '-f',
        values,
      ]);
      const pods = await deploymentReady(cluster, HELM_NS, `${RELEASE}-egress-proxies-operator`);
      leaderPod = await leaseHeldBy(cluster, HELM_NS, `${RELEASE}-egress-proxies-operator`, pods);
      timings.helmInstallReady = since(t);
      expect(await podHttpGet(cluster, leaderPod, 8080, '/metrics')).toMatch(/^egress_proxies_proxies\b/m);
    },
    STEP_MS,
  );

  it(
    'runs the Squid Pod under the restricted Pod Security Standard and the Proxy goes Ready with its address',
    async () => {
      await cluster.ensureNamespace(PROXY_NS);
      await mustRequest(
        cluster,
        'PATCH',
        `/api/v1/namespaces/${PROXY_NS}`,
        { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } },
        'application/merge-patch+json',
      );
      const t = Date.now();
      await mustRequest(
        cluster,
        'POST',
        PROXIES,
        proxyDoc('squid-a', { mode: 'Managed', provider: 'in-cluster', port: PORT }),
      );
      const ready = await proxyReady('squid-a');
      timings.proxyReady = since(t);
      // The operator's probe through Squid may pass before the kubelet's first readiness probe.
      const pod = await waitForProgress('the Squid Pod Ready', async () => {
        const p = await squidPodOf('squid-a');
        const isReady = p?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
        return { ...(isReady ? { done: p } : {}), progress: p ? describePods([p]) : 'no Pod' };
      });
      squidIP = pod.status?.podIP ?? '';
      // Admitted under `restricted`, running as uid 13, passing its readiness probe, never restarted.
      expect(pod.status?.phase).toBe('Running');
      expect(pod.status?.containerStatuses?.[0]?.restartCount).toBe(0);
      expect(ready.status?.ip).toBe(squidIP);
      // The probe went through Squid: the echo server saw the node's address (Pod traffic is
      // masqueraded leaving the Pod network).
      expect(ready.status?.egressIP).toBe(cluster.nodeIP);
      expect(pod.metadata.ownerReferences).toEqual([
        expect.objectContaining({
          kind: 'Proxy',
          name: 'squid-a',
          uid: ready.metadata.uid,
          controller: true,
        }),
      ]);
      const log = (
        await mustRequest(cluster, 'GET', `/api/v1/namespaces/${PROXY_NS}/pods/${pod?.metadata.name}/log`)
      ).body;
      expect(log).not.toMatch(/FATAL/);
    },
    STEP_MS,
  );

  it(
    '`curl -x` from a Pod in the allowed range gets through; from a Pod outside it, Squid refuses',
    async () => {
      await cluster.ensureNamespace(CLIENT_NS);
      const curl = (name: string, args: string[], extra: Record<string, unknown> = {}) =>
        runPod(cluster, CLIENT_NS, {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name },
          spec: {
            restartPolicy: 'Never',
            automountServiceAccountToken: false,
            ...extra,
            containers: [{ name: 'curl', image: qualified(SQUID_IMAGE), command: ['curl', ...args] }],
          },
        });
      const inside = await curl('curl-allowed', [
        '-sS',
        '--max-time',
        '30',
        '-x',
        `http://${squidIP}:${PORT}`,
        echo.url,
      ]);
      expect(inside.phase).toBe('Succeeded');
      expect(JSON.parse(inside.log)).toEqual({ ip: cluster.nodeIP });
      // On the node's network, bound to the node's address: a source outside the Pod range.
      const outside = await curl(
        'curl-outside',
        [
          '-s',
          '-o',
          '/dev/null',
          '-w',
          '%{http_code}',
          '--max-time',
          '30',
          '--interface',
          cluster.nodeIP,
          '-x',
          `http://${squidIP}:${PORT}`,
          echo.url,
        ],
        { hostNetwork: true },
      );
      expect(outside.log.trim()).toBe('403');
    },
    STEP_MS,
  );

  it(
    'stores one trace in the collector: reconcile -> provider.create -> the kube API calls',
    async () => {
      const chain = await waitForProgress('the create trace in the collector', async () => {
        const spans = collector.spans();
        const found = findSpanChain(
          spans,
          ['reconcile', 'provider.create', 'kubernetes.createPod'],
          (s) => s.attributes['proxy.name'] === 'squid-a',
        );
        return { ...(found ? { done: found } : {}), progress: `${spans.length} spans` };
      });
      const [reconcile, create, createPod] = chain;
      expect(reconcile?.service).toBe('egress-proxies-operator');
      expect(create?.attributes['provider.type']).toBe('kubernetes');
      expect(createPod?.attributes['k8s.namespace.name']).toBe(PROXY_NS);
      expect(new Set(chain.map((s) => s.traceId)).size).toBe(1);
      const below = descendantsOf(collector.spans(), create!).map((s) => s.name);
      expect(below.every((n) => n.startsWith('kubernetes.'))).toBe(true);
    },
    STEP_MS,
  );

  it(
    'an External Proxy pointing at the Squid Pod goes Ready',
    async () => {
      const t = Date.now();
      await mustRequest(
        cluster,
        'POST',
        PROXIES,
        proxyDoc('external-a', { mode: 'External', address: `${squidIP}:${PORT}` }),
      );
      const ready = await proxyReady('external-a');
      timings.externalReady = since(t);
      expect(ready.status?.egressIP).toBe(cluster.nodeIP);
      await mustRequest(cluster, 'DELETE', `${PROXIES}/external-a`);
      await gone(cluster, 'Proxy external-a', `${PROXIES}/external-a`);
    },
    STEP_MS,
  );

  it(
    'deleting the Proxy runs the finalizer, which removes the Squid Pod before the Proxy goes',
    async () => {
      const pod = await squidPodOf('squid-a');
      expect(pod).toBeDefined();
      const t = Date.now();
      await mustRequest(cluster, 'DELETE', `${PROXIES}/squid-a`);
      await gone(cluster, 'Proxy squid-a', `${PROXIES}/squid-a`);
      await gone(
        cluster,
        `Pod ${pod?.metadata.name}`,
        `/api/v1/namespaces/${PROXY_NS}/pods/${pod?.metadata.name}`,
      );
      timings.proxyDeleted = since(t);
    },
    STEP_MS,
  );

  it(
    "with no operator running, the controller manager's garbage collector removes a Proxy's Pod once the Proxy is gone",
    async () => {
      await mustRequest(
        cluster,
        'POST',
        PROXIES,
        proxyDoc('squid-gc', { mode: 'Managed', provider: 'in-cluster', port: PORT }),
      );
      const ready = await proxyReady('squid-gc');
      const pod = await squidPodOf('squid-gc');
      expect(pod?.metadata.ownerReferences?.[0]?.uid).toBe(ready.metadata.uid);
      const deploy = `${RELEASE}-egress-proxies-operator`;
      await tools.kubectl(['scale', 'deployment', deploy, '-n', HELM_NS, '--replicas=0']);
      await waitForProgress('the operator Pods gone', async () => {
        const left = await listPods(cluster, HELM_NS);
        return { ...(left.length === 0 ? { done: true } : {}), progress: `${left.length} Pods` };
      });
      // The finalizer has nobody to run it: take it off by hand, as an admin would.
      await mustRequest(cluster, 'DELETE', `${PROXIES}/squid-gc`);
      await mustRequest(
        cluster,
        'PATCH',
        `${PROXIES}/squid-gc`,
        { metadata: { finalizers: null } },
        'application/merge-patch+json',
      );
      await gone(cluster, 'Proxy squid-gc', `${PROXIES}/squid-gc`);
      await gone(
        cluster,
        `Pod ${pod?.metadata.name} (garbage-collected)`,
        `/api/v1/namespaces/${PROXY_NS}/pods/${pod?.metadata.name}`,
      );
      await tools.kubectl(['scale', 'deployment', deploy, '-n', HELM_NS, '--replicas=2']);
      const pods = await deploymentReady(cluster, HELM_NS, deploy);
      leaderPod = await leaseHeldBy(cluster, HELM_NS, deploy, pods);
    },
    STEP_MS,
  );

  it(
    'a ProxyPool of two Squid Pods behind the chart gateway: rotation, a sticky session, 407, and owner GC when the pool goes',
    async () => {
      const t = Date.now();
      const password = randomBytes(12).toString('hex');
      await mustRequest(cluster, 'POST', `/api/v1/namespaces/${PROXY_NS}/secrets`, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'crawl-users' },
        stringData: { alice: password },
      });
      await mustRequest(cluster, 'POST', POOLS, {
        apiVersion: 'egress-proxies.dev/v1alpha1',
        kind: 'ProxyPool',
        metadata: { name: POOL, namespace: PROXY_NS },
        spec: {
          replicas: 2,
          template: proxyDoc('template', { mode: 'Managed', provider: 'in-cluster', port: PORT }).spec,
          gateway: { usersSecret: 'crawl-users' },
        },
      });
      const pool = await waitForProgress(`ProxyPool ${POOL} with 2 Ready members`, async () => {
        const p = await getJson<PoolObject>(cluster, `${POOLS}/${POOL}`);
        return {
          ...((p?.status?.ready ?? 0) === 2 ? { done: p } : {}),
          progress: JSON.stringify(p?.status ?? {}),
        };
      });
      const memberNames = (pool?.status?.members ?? []).map((m) => m.name).sort();
      expect(memberNames).toHaveLength(2);
      for (const name of memberNames) {
        const member = await getJson<ProxyObject & { metadata: { ownerReferences?: unknown[] } }>(
          cluster,
          `${PROXIES}/${name}`,
        );
        expect(member?.metadata.ownerReferences).toEqual([
          expect.objectContaining({
            kind: 'ProxyPool',
            name: POOL,
            uid: pool?.metadata.uid,
            controller: true,
          }),
        ]);
      }
      // The chart's gateway for the pool: a Deployment in the pool's namespace behind <pool>-gateway.
      // The chart's `gateways` list, changed with `helm upgrade` on the running release.
      const setGateways = async (list: unknown[]) => {
        const values = join(env.workDir, 'values-gateway.yaml');
        writeFileSync(values, stringify({ gateways: list }));
        await tools.helm([
          'upgrade',
          RELEASE,
          join(ROOT, 'chart'),
          '-n',
          HELM_NS,
          '--reuse-values',
          '-f',
          values,
        ]);
      };
      const gateways = [{ pool: POOL, namespace: PROXY_NS, usersSecret: 'crawl-users', replicas: 2 }];
      await setGateways(gateways);
      await deploymentReady(cluster, PROXY_NS, `${POOL}-gateway`);
      const withGateway = await waitForProgress(`ProxyPool ${POOL} status.gateway`, async () => {
        const p = await getJson<PoolObject>(cluster, `${POOLS}/${POOL}`);
        return {
          ...(p?.status?.gateway ? { done: p } : {}),
          progress: JSON.stringify(p?.status?.conditions ?? []),
        };
      });
      expect(withGateway.status?.gateway).toBe(`${POOL}-gateway.${PROXY_NS}.svc:8080`);
      timings.poolGatewayReady = since(t);
      // Through the Service's cluster IP (kube-proxy's rules), from a Pod in the allowed range.
      const svc = await getJson<{ spec: { clusterIP: string } }>(
        cluster,
        `/api/v1/namespaces/${PROXY_NS}/services/${POOL}-gateway`,
      );
      const via = (user: string) => `http://${user}:${password}@${svc?.spec.clusterIP}:8080`;
      const throughGateway = async (pod: string, user: string, times: number) => {
        const script = `for i in $(seq ${times}); do curl -sS -i --max-time 30 -x "$1" "$2"; echo; echo '----'; done`;
        const run = await runPod(cluster, CLIENT_NS, {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: pod },
          spec: {
            restartPolicy: 'Never',
            automountServiceAccountToken: false,
            containers: [
              {
                name: 'curl',
                image: qualified(SQUID_IMAGE),
                command: ['sh', '-c', script, 'sh', via(user), echo.url],
              },
            ],
          },
        });
        expect(run.phase, run.log).toBe('Succeeded');
        return run.log
          .split('----')
          .filter((r) => r.trim())
          .map((r) => ({
            status: Number(/^HTTP\/[\d.]+ (\d{3})/m.exec(r)?.[1]),
            member: /^x-egress-member: *(\S+)/im.exec(r)?.[1],
            body: r.trim().split('\n').at(-1) ?? '',
          }));
      };
      // Without a session, round-robin spreads new connections over both members.
      const spread = await throughGateway('gw-spread', 'alice', 4);
      expect(spread.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(new Set(spread.map((r) => r.member))).toEqual(new Set(memberNames));
      for (const r of spread) expect(JSON.parse(r.body)).toEqual({ ip: cluster.nodeIP });
      // A session in the username pins one member (both gateway replicas agree on it).
      const sticky = await throughGateway('gw-sticky', 'alice-session-s1', 3);
      expect(sticky.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(new Set(sticky.map((r) => r.member)).size).toBe(1);
      expect(memberNames).toContain(sticky[0]?.member);
      // A wrong password is refused before any member is used.
      const refused = await throughGateway('gw-refused', 'mallory', 1);
      expect(refused.map((r) => r.status)).toEqual([407]);
      expect(refused[0]?.member).toBeUndefined();

      // Deleting the pool: the controller manager's garbage collector deletes the members it
      // owns, and the operator's finalizer removes each member's Squid Pod.
      const squidPods = (await Promise.all(memberNames.map((name) => squidPodOf(name)))).map(
        (pod) => pod?.metadata.name,
      );
      expect(squidPods.every(Boolean)).toBe(true);
      await mustRequest(cluster, 'DELETE', `${POOLS}/${POOL}`);
      await gone(cluster, `ProxyPool ${POOL}`, `${POOLS}/${POOL}`);
      for (const name of memberNames) await gone(cluster, `member Proxy ${name}`, `${PROXIES}/${name}`);
      for (const pod of squidPods)
        await gone(cluster, `Squid Pod ${pod}`, `/api/v1/namespaces/${PROXY_NS}/pods/${pod}`);
      // The gateway leaves with its chart entry.
      await setGateways([]);
      await gone(
        cluster,
        `Deployment ${POOL}-gateway`,
        `/apis/apps/v1/namespaces/${PROXY_NS}/deployments/${POOL}-gateway`,
      );
    },
    STEP_MS,
  );

  it(
    '`helm upgrade` to a chart whose CRD gained an optional field applies it under the running operator',
    async () => {
      const next = join(env.workDir, 'chart-next');
      cpSync(join(ROOT, 'chart'), next, { recursive: true });
      const file = join(next, 'files', 'crds', 'egress-proxies.dev_proxies.yaml');
      type Crd = {
        spec: {
          versions: {
            schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } };
          }[];
        };
      };
      const crd = parse(readFileSync(file, 'utf8')) as Crd;
      for (const v of crd.spec.versions)
        v.schema.openAPIV3Schema.properties.spec.properties.upgradeNote = { type: 'string', maxLength: 64 };
      writeFileSync(file, stringify(crd));
      const chartYaml = join(next, 'Chart.yaml');
      writeFileSync(chartYaml, readFileSync(chartYaml, 'utf8').replace(/^version: .*$/m, 'version: 99.0.0'));
      const t = Date.now();
      await tools.helm(['upgrade', RELEASE, next, '-n', HELM_NS, '--reuse-values']);
      await waitForProgress('the upgraded CRD served', async () => {
        const live = await getJson<Crd>(
          cluster,
          '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/proxies.egress-proxies.dev',
        );
        const fields = Object.keys(
          live?.spec.versions[0]?.schema.openAPIV3Schema.properties.spec.properties ?? {},
        );
        return { ...(fields.includes('upgradeNote') ? { done: true } : {}), progress: fields.join(',') };
      });
      timings.helmUpgrade = since(t);
      const pods = await deploymentReady(cluster, HELM_NS, `${RELEASE}-egress-proxies-operator`);
      await leaseHeldBy(cluster, HELM_NS, `${RELEASE}-egress-proxies-operator`, pods);
      // The API server keeps the new field (a schema without it would prune it): checked with a
      // dry run, since this operator image predates the field and refuses specs it does not know.
      const dry = await mustRequest(
        cluster,
        'POST',
        `${PROXIES}?dryRun=All`,
        proxyDoc('noted', {
          mode: 'External',
          address: `${cluster.nodeIP}:${PORT}`,
          upgradeNote: 'after 99.0.0',
        }),
      );
      expect(dry.json<{ spec: { upgradeNote?: string } }>().spec.upgradeNote).toBe('after 99.0.0');
      // The running operator still reconciles: a new Proxy goes Ready on a new Squid Pod.
      await mustRequest(
        cluster,
        'POST',
        PROXIES,
        proxyDoc('squid-b', { mode: 'Managed', provider: 'in-cluster', port: PORT }),
      );
      const b = await proxyReady('squid-b');
      expect(b.status?.ip).toMatch(/^10\.244\.0\./);
      await mustRequest(cluster, 'DELETE', `${PROXIES}/squid-b`);
      await gone(cluster, 'Proxy squid-b', `${PROXIES}/squid-b`);

      const result: KubeTimings = {
        date: new Date().toISOString().slice(0, 10),
        build: {},
        clusterStart: timings.clusterStart ?? 0,
        kustomizeReady: timings.kustomizeReady ?? 0,
        helmInstallReady: timings.helmInstallReady ?? 0,
        proxyReady: timings.proxyReady ?? 0,
        proxyDeleted: timings.proxyDeleted ?? 0,
        externalReady: timings.externalReady ?? 0,
        ...(timings.poolGatewayReady === undefined ? {} : { poolGatewayReady: timings.poolGatewayReady }),
        helmUpgrade: timings.helmUpgrade ?? 0,
        total: since(startedAt),
      };
      writeFileSync(env.timingsOut, `${JSON.stringify(result, null, 2)}\n`);
    },
    STEP_MS,
  );
});
