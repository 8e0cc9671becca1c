import type { KubeControlPlane } from '@egress-proxies/testenv-kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_PLANE_BUDGET_MS, startClusterWithCrds } from './support/cluster.js';

const NS = 'pools';
let cp: KubeControlPlane;

beforeAll(async () => {
  cp = await startClusterWithCrds();
  await cp.ensureNamespace(NS);
}, CONTROL_PLANE_BUDGET_MS);
afterAll(async () => {
  await cp?.stop();
});

const path = `/apis/egress-proxies.dev/v1alpha1/namespaces/${NS}/proxypools`;
const post = (name: string, spec: unknown) =>
  cp.request('POST', path, {
    apiVersion: 'egress-proxies.dev/v1alpha1',
    kind: 'ProxyPool',
    metadata: { name },
    spec,
  });

describe('the ProxyPool CRD on the API server', () => {
  it('rejects bad pool specs with messages naming the field', async () => {
    const template = { provider: 'local' };
    const cases: [unknown, string][] = [
      [{ template }, 'spec.replicas: Required value'],
      [{ replicas: -1, template }, 'spec.replicas in body should be greater than or equal to 0'],
      [{ replicas: 2, template: { mode: 'External', address: 'a:1' } }, 'spec.template.mode must be Managed'],
      [{ replicas: 2, template: {} }, 'spec.provider is required when mode is Managed'],
      [
        { replicas: 1, template, rotation: { minReady: 3 } },
        'spec.rotation.minReady must not exceed spec.replicas',
      ],
      [{ replicas: 1, template, rotation: { maxAge: 'soon' } }, 'spec.rotation.maxAge in body should match'],
      [{ replicas: 1, template, gateway: { selection: 'fastest' } }, 'Unsupported value: "fastest"'],
      [{ replicas: 1, template, gateway: { banStatuses: [200] } }, 'should be greater than or equal to 400'],
      [
        { replicas: 1, template, spread: [{ provider: 'Bad_Name' }] },
        'spec.spread[0].provider in body should match',
      ],
      [
        { replicas: 1, template, spread: [{ provider: 'a', weight: 0 }] },
        'spec.spread[0].weight in body should be greater than or equal to 1',
      ],
      [
        { replicas: 1, template, autoscale: { minReplicas: 4, maxReplicas: 2, targetActiveConnections: 1 } },
        'spec.autoscale.minReplicas must not exceed spec.autoscale.maxReplicas',
      ],
      [
        { replicas: 1, template, autoscale: { maxReplicas: 2 } },
        'targetActiveConnections and/or targetRequestsPerSecond',
      ],
      [
        {
          replicas: 0,
          template,
          autoscale: { maxReplicas: 2, targetActiveConnections: 1 },
          rotation: { minReady: 3 },
        },
        'spec.rotation.minReady must not exceed spec.autoscale.maxReplicas',
      ],
      [
        {
          replicas: 1,
          template,
          autoscale: { maxReplicas: 2, targetActiveConnections: 1, wakeTimeout: 'soon' },
        },
        'spec.autoscale.wakeTimeout in body should match',
      ],
    ];
    for (const [i, [spec, message]] of cases.entries()) {
      const r = await post(`bad-${i}`, spec);
      expect(r.status, JSON.stringify(spec)).toBe(422);
      expect(r.json<{ message: string }>().message, JSON.stringify(spec)).toContain(message);
    }
  });

  it('fills the defaults and is listed by its short name', async () => {
    const r = await post('ok', { replicas: 3, template: { provider: 'local' }, rotation: {}, gateway: {} });
    expect(r.status).toBe(201);
    const spec = r.json<{ spec: Record<string, Record<string, unknown>> }>().spec;
    expect(spec.rotation).toEqual({ maxSurge: 1, minReady: 0, onBan: 'Keep', onDuplicateEgress: 'Keep' });
    expect(spec.gateway).toMatchObject({
      enabled: true,
      selection: 'round-robin',
      sessionTTL: '10m',
      port: 8080,
    });
    expect(spec.template).toMatchObject({ mode: 'Managed', port: 3128 });
    const crd = await cp.request(
      'GET',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/proxypools.egress-proxies.dev',
    );
    const names = crd.json<{ spec: { names: { shortNames: string[] } } }>().spec.names;
    expect(names.shortNames).toEqual(['pxp']);
  });

  it('has the scale subresource: replicas written through it land in spec.replicas, the selector comes from status', async () => {
    const name = 'scaled';
    const created = await post(name, {
      replicas: 0,
      template: { provider: 'local' },
      autoscale: { minReplicas: 0, maxReplicas: 4, scaler: 'External' },
    });
    expect(created.status).toBe(201);
    const status = await cp.request(
      'PATCH',
      `${path}/${name}/status`,
      { status: { replicas: 0, selector: 'egress-proxies.dev/pool=scaled' } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(status.status, status.body).toBe(200);
    // What `kubectl scale pxp scaled --replicas=3` and an HPA send.
    const scaled = await cp.request(
      'PATCH',
      `${path}/${name}/scale`,
      { spec: { replicas: 3 } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(scaled.status, scaled.body).toBe(200);
    const scale = (await cp.request('GET', `${path}/${name}/scale`)).json<{
      kind: string;
      spec: { replicas: number };
      status: { replicas: number; selector: string };
    }>();
    expect(scale).toMatchObject({
      kind: 'Scale',
      spec: { replicas: 3 },
      status: { replicas: 0, selector: 'egress-proxies.dev/pool=scaled' },
    });
    const pool = (await cp.request('GET', `${path}/${name}`)).json<{ spec: { replicas: number } }>();
    expect(pool.spec.replicas).toBe(3);
  });
});
