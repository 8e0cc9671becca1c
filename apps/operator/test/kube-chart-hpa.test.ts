import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { KubeControlPlane } from '@egress-proxies/testenv-kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { CONTROL_PLANE_BUDGET_MS, startClusterWithCrds } from './support/cluster.js';
import { ensureHelm } from './support/helm.js';

// The chart's optional HPAs (templates/gateway-hpa.yaml), rendered by the real helm and created on
// the real kube-apiserver: the server's own validation (strict: an unknown field is an error)
// decides whether they are right, and each scaleTargetRef must name an object with a scale
// subresource, which is what the HPA controller reads and writes.
const chart = join(__dirname, '..', '..', '..', 'chart');
const NS = 'team-hpa';
let cp: KubeControlPlane;
let helm: string;

beforeAll(async () => {
  helm = ensureHelm();
  cp = await startClusterWithCrds();
  await cp.ensureNamespace(NS);
}, CONTROL_PLANE_BUDGET_MS);
afterAll(async () => {
  await cp?.stop();
});

type Doc = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string };
  spec?: Record<string, unknown>;
};
type ScaleTargetRef = { apiVersion: string; kind: string; name: string };

const POOL_METRICS = JSON.stringify([
  {
    type: 'External',
    external: {
      metric: { name: 'crawler_queue_depth' },
      target: { type: 'AverageValue', averageValue: '100' },
    },
  },
]);
const GATEWAY = [
  'gateways[0].pool=crawl',
  `gateways[0].namespace=${NS}`,
  'gateways[0].usersSecret=crawl-users',
];

function render(sets: string[], json: string[] = []) {
  return spawnSync(
    helm,
    [
      'template',
      'x',
      chart,
      '-n',
      'egress-proxies-system',
      ...sets.flatMap((s) => ['--set', s]),
      ...json.flatMap((s) => ['--set-json', s]),
    ],
    { encoding: 'utf8' },
  );
}
const docs = (out: string) =>
  parseAllDocuments(out)
    .map((d) => d.toJS() as Doc)
    .filter(Boolean);

/** The REST path of a namespaced object from its apiVersion and kind, found through discovery. */
async function pathOf(ref: ScaleTargetRef): Promise<{ path: string; scalable: boolean }> {
  const group = ref.apiVersion.includes('/') ? `/apis/${ref.apiVersion}` : `/api/${ref.apiVersion}`;
  const r = await cp.request('GET', group);
  expect(r.status, `discovery of ${ref.apiVersion}: ${r.body}`).toBe(200);
  const resources = r.json<{ resources: { name: string; kind: string }[] }>().resources;
  const plural = resources.find((x) => x.kind === ref.kind && !x.name.includes('/'))?.name;
  if (!plural) throw new Error(`${ref.apiVersion} serves no kind ${ref.kind}`);
  return {
    path: `${group}/namespaces/${NS}/${plural}/${ref.name}`,
    scalable: resources.some((x) => x.name === `${plural}/scale`),
  };
}

/** Creates `doc` as the API server validates it strictly; its status and body. */
async function create(doc: Doc) {
  const { path } = await pathOf({ apiVersion: doc.apiVersion, kind: doc.kind, name: doc.metadata.name });
  const collection = path.slice(0, path.lastIndexOf('/'));
  return cp.request('POST', `${collection}?fieldValidation=Strict`, doc);
}

describe('chart: HorizontalPodAutoscalers', () => {
  it('renders none by default, and the gateway Deployment keeps its replicas', () => {
    const r = render(GATEWAY);
    expect(r.status, r.stderr).toBe(0);
    const all = docs(r.stdout);
    expect(all.filter((d) => d.kind === 'HorizontalPodAutoscaler')).toEqual([]);
    expect(
      all.find((d) => d.kind === 'Deployment' && d.metadata.name === 'crawl-gateway')?.spec?.replicas,
    ).toBe(2);
  });

  it('creates the gateway and pool HPAs on the API server, each aimed at an object with a scale subresource', async () => {
    const r = render(
      [
        ...GATEWAY,
        'gateways[0].resources.requests.cpu=100m',
        'gateways[0].autoscaling.enabled=true',
        'gateways[0].autoscaling.maxReplicas=6',
        'gateways[0].poolAutoscaling.enabled=true',
        'gateways[0].poolAutoscaling.maxReplicas=20',
      ],
      [`gateways[0].poolAutoscaling.metrics=${POOL_METRICS}`],
    );
    expect(r.status, r.stderr).toBe(0);
    const all = docs(r.stdout);
    // The HPA owns the gateway's size: an upgrade must not reset it to the chart's number.
    const deployment = all.find((d) => d.kind === 'Deployment' && d.metadata.name === 'crawl-gateway');
    expect(deployment?.spec).not.toHaveProperty('replicas');
    expect(deployment?.spec?.template).toMatchObject({
      spec: { containers: [{ resources: { requests: { cpu: '100m' } } }] },
    });
    const hpas = all.filter((d) => d.kind === 'HorizontalPodAutoscaler');
    expect(hpas.map((h) => h.metadata.name).sort()).toEqual(['crawl-gateway', 'crawl-members']);

    // The targets: the gateway Deployment as the chart renders it, and the pool (External scaler).
    expect((await create(deployment as Doc)).status).toBe(201);
    const pool = await cp.request('POST', `/apis/egress-proxies.dev/v1alpha1/namespaces/${NS}/proxypools`, {
      apiVersion: 'egress-proxies.dev/v1alpha1',
      kind: 'ProxyPool',
      metadata: { name: 'crawl' },
      spec: {
        replicas: 3,
        template: { provider: 'local' },
        autoscale: { scaler: 'External', minReplicas: 1, maxReplicas: 20 },
      },
    });
    expect(pool.status, pool.body).toBe(201);

    for (const hpa of hpas) {
      const created = await create(hpa);
      expect(created.status, `${hpa.metadata.name}: ${created.body}`).toBe(201);
      const ref = hpa.spec?.scaleTargetRef as ScaleTargetRef;
      const target = await pathOf(ref);
      expect(target.scalable, `${ref.kind} ${ref.name} has a scale subresource`).toBe(true);
      const scale = await cp.request('GET', `${target.path}/scale`);
      expect(scale.status, `${ref.kind}/${ref.name}/scale: ${scale.body}`).toBe(200);
      expect(scale.json<{ kind: string; spec: { replicas?: number } }>()).toMatchObject({
        kind: 'Scale',
        // The gateway Deployment without a replicas field starts at the API server's default, 1.
        spec: { replicas: ref.kind === 'ProxyPool' ? 3 : 1 },
      });
    }
    const stored = await cp.request(
      'GET',
      `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers/crawl-members`,
    );
    expect(stored.json<Doc>().spec).toMatchObject({
      minReplicas: 1,
      maxReplicas: 20,
      metrics: JSON.parse(POOL_METRICS),
    });
  });

  it('passes helm lint --strict with both HPAs and the status page on', () => {
    const r = spawnSync(
      helm,
      [
        'lint',
        '--strict',
        chart,
        ...[
          ...GATEWAY,
          'gateways[0].resources.requests.cpu=100m',
          'gateways[0].autoscaling.enabled=true',
          'gateways[0].poolAutoscaling.enabled=true',
          'gateways[0].poolAutoscaling.maxReplicas=20',
          'statusPage.enabled=true',
        ].flatMap((s) => ['--set', s]),
        '--set-json',
        `gateways[0].poolAutoscaling.metrics=${POOL_METRICS}`,
      ],
      { encoding: 'utf8' },
    );
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it('refuses a CPU-scaled gateway without a CPU request, and a pool HPA without metrics, naming the field', () => {
    const noCpu = render([...GATEWAY, 'gateways[0].autoscaling.enabled=true']);
    expect(noCpu.status).not.toBe(0);
    expect(noCpu.stderr).toContain('gateways[crawl].resources.requests.cpu');
    const noMetrics = render([
      ...GATEWAY,
      'gateways[0].poolAutoscaling.enabled=true',
      'gateways[0].poolAutoscaling.maxReplicas=5',
    ]);
    expect(noMetrics.status).not.toBe(0);
    expect(noMetrics.stderr).toContain('gateways[crawl].poolAutoscaling.metrics');
    const badField = render([...GATEWAY, 'gateways[0].autoscaling.maxReplica=5']);
    expect(badField.status).not.toBe(0);
    expect(badField.stderr).toContain('maxReplica');
  });
});
