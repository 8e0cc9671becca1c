import type { KubeControlPlane } from '@egress-proxies/testenv-kube';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubePoolController } from '../src/cluster/kube-pool-controller.js';
import { CONTROL_PLANE_BUDGET_MS, startClusterWithCrds } from './support/cluster.js';

// The pool controller against the real kube-apiserver. There is no Proxy reconciler here: a
// member's Ready status is written the way the reconciler writes it, so each pass is observable.
const NS = 'pool-ctl';
let cp: KubeControlPlane;
let ctl: KubePoolController;
const signal = new AbortController().signal;
const base = '/apis/egress-proxies.dev/v1alpha1';

interface Px {
  metadata: {
    name: string;
    labels: Record<string, string>;
    ownerReferences?: { kind: string; name: string; uid: string; controller: boolean }[];
  };
  spec: { port: number };
  status?: { phase?: string };
}

beforeAll(async () => {
  cp = await startClusterWithCrds();
  await cp.ensureNamespace(NS);
  const kc = new KubeConfig();
  kc.loadFromString(cp.kubeconfig());
  ctl = new KubePoolController({ kubeConfig: kc, namespace: NS });
}, CONTROL_PLANE_BUDGET_MS);
afterAll(async () => {
  await cp?.stop();
});

const members = async () =>
  (
    await cp.request('GET', `${base}/namespaces/${NS}/proxies?labelSelector=egress-proxies.dev/pool=crawl`)
  ).json<{
    items: Px[];
  }>().items;
const pool = async () =>
  (await cp.request('GET', `${base}/namespaces/${NS}/proxypools/crawl`)).json<{
    metadata: { uid: string; annotations?: Record<string, string> };
    status: {
      replicas: number;
      ready: number;
      updated: number;
      members?: { name: string; ip?: string; port?: number }[];
      conditions: { type: string; status: string }[];
    };
  }>();
const markReady = async (name: string) => {
  const r = await cp.request(
    'PATCH',
    `${base}/namespaces/${NS}/proxies/${name}/status`,
    { status: { phase: 'Ready' } },
    { contentType: 'application/merge-patch+json' },
  );
  expect(r.status).toBe(200);
};
const patchPool = (body: unknown) =>
  cp.request('PATCH', `${base}/namespaces/${NS}/proxypools/crawl`, body, {
    contentType: 'application/merge-patch+json',
  });
/** Passes until the pool settles, making new members Ready after each pass; the lowest Ready count seen. */
async function settle(passes = 12): Promise<number> {
  let lowest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < passes; i++) {
    await ctl.reconcileAll(signal);
    const ms = await members();
    lowest = Math.min(lowest, ms.filter((m) => m.status?.phase === 'Ready').length);
    for (const m of ms) if (m.status?.phase !== 'Ready') await markReady(m.metadata.name);
  }
  return lowest;
}

describe('ProxyPool controller on the API server', () => {
  it('creates owned members, scales, rotates a template change with minReady held, recycles on demand and scales down', async () => {
    const created = await cp.request('POST', `${base}/namespaces/${NS}/proxypools`, {
      apiVersion: 'egress-proxies.dev/v1alpha1',
      kind: 'ProxyPool',
      metadata: { name: 'crawl' },
      spec: { replicas: 2, template: { provider: 'local' }, rotation: { minReady: 2, maxSurge: 1 } },
    });
    expect(created.status).toBe(201);
    await ctl.reconcileAll(signal);
    const first = await members();
    expect(first).toHaveLength(2);
    const { uid } = (await pool()).metadata;
    for (const m of first) {
      expect(m.metadata.name).toMatch(/^crawl-[a-z0-9]{5}$/);
      // Owned by the pool: Kubernetes' garbage collector deletes them with it.
      expect(m.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'ProxyPool', name: 'crawl', uid, controller: true }),
      ]);
    }
    expect((await pool()).status.conditions.find((c) => c.type === 'Ready')?.status).toBe('False');
    await settle(2);
    expect((await pool()).status).toMatchObject({ replicas: 2, ready: 2 });
    expect((await pool()).status.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');

    // Scale up.
    expect((await patchPool({ spec: { replicas: 3 } })).status).toBe(200);
    await settle(3);
    expect(await members()).toHaveLength(3);

    // A template change rolls every member, one surge at a time, never below minReady.
    expect((await patchPool({ spec: { template: { port: 3129 } } })).status).toBe(200);
    const lowest = await settle(12);
    const rolled = await members();
    expect(rolled.map((m) => m.spec.port)).toEqual([3129, 3129, 3129]);
    expect(lowest).toBeGreaterThanOrEqual(2);
    expect((await pool()).status).toMatchObject({ replicas: 3, ready: 3, updated: 3 });

    // Recycle one member on demand; the annotation is dropped once it is done.
    const victim = rolled[0]?.metadata.name as string;
    await patchPool({ metadata: { annotations: { 'egress-proxies.dev/recycle': victim } } });
    await settle(4);
    const after = await members();
    expect(after.map((m) => m.metadata.name)).not.toContain(victim);
    expect(after).toHaveLength(3);
    expect((await pool()).metadata.annotations?.['egress-proxies.dev/recycle']).toBeUndefined();

    // Scale down to one: the oldest Ready members go.
    await patchPool({ spec: { replicas: 1, rotation: { minReady: 1 } } });
    await settle(2);
    expect(await members()).toHaveLength(1);

    // onBan: Recycle replaces a member the gateway marked cooled down; with Keep it stays.
    const banned = (await members())[0]?.metadata.name as string;
    const mark = {
      metadata: {
        annotations: { 'egress-proxies.dev/cooled-down': `${new Date().toISOString()} status-429` },
      },
    };
    await cp.request('PATCH', `${base}/namespaces/${NS}/proxies/${banned}`, mark, {
      contentType: 'application/merge-patch+json',
    });
    await settle(2);
    expect((await members()).map((m) => m.metadata.name)).toEqual([banned]);
    await patchPool({ spec: { rotation: { onBan: 'Recycle' } } });
    await settle(4);
    const replaced = await members();
    expect(replaced).toHaveLength(1);
    expect(replaced[0]?.metadata.name).not.toBe(banned);
  });

  it("lists each member where it listens: the port its provider allocated, else the spec's", async () => {
    const [member] = await members();
    const name = member?.metadata.name as string;
    const setStatus = async (status: Record<string, unknown>) => {
      const r = await cp.request(
        'PATCH',
        `${base}/namespaces/${NS}/proxies/${name}/status`,
        { status },
        {
          contentType: 'application/merge-patch+json',
        },
      );
      expect(r.status).toBe(200);
      await ctl.reconcileAll(signal);
      return (await pool()).status.members?.find((m) => m.name === name);
    };
    expect(await setStatus({ phase: 'Ready', ip: '10.0.0.7', port: 40123 })).toMatchObject({
      ip: '10.0.0.7',
      port: 40123,
    });
    expect(await setStatus({ port: null })).toMatchObject({ ip: '10.0.0.7', port: member?.spec.port });
  });

  it("shows each member's assigned and seen egress, and DistinctEgress False naming two Ready members seen from one address", async () => {
    // Two members, whatever the earlier cases left.
    expect((await patchPool({ spec: { replicas: 2, rotation: { minReady: 0 } } })).status).toBe(200);
    await settle(3);
    const [a, b] = (await members()).map((m) => m.metadata.name).sort();
    expect(b).toBeDefined();
    const setStatus = async (name: string | undefined, status: Record<string, unknown>) => {
      const r = await cp.request(
        'PATCH',
        `${base}/namespaces/${NS}/proxies/${name}/status`,
        { status },
        {
          contentType: 'application/merge-patch+json',
        },
      );
      expect(r.status).toBe(200);
    };
    await setStatus(a, { phase: 'Ready', egressIP: '198.51.100.7', assignedEgress: { ipv4: '192.0.2.11' } });
    await setStatus(b, { phase: 'Ready', egressIP: '198.51.100.7', assignedEgress: { ipv4: '192.0.2.12' } });
    await ctl.reconcileAll(signal);
    const st = (await pool()).status as unknown as {
      members: { name: string; egressIP?: string; assignedEgress?: { ipv4?: string } }[];
      conditions: { type: string; status: string; reason: string; message: string }[];
    };
    expect(st.members.find((m) => m.name === a)).toMatchObject({
      egressIP: '198.51.100.7',
      assignedEgress: { ipv4: '192.0.2.11' },
    });
    const distinct = st.conditions.find((c) => c.type === 'DistinctEgress');
    expect(distinct).toMatchObject({ status: 'False', reason: 'DuplicateEgress' });
    // Oldest first (the younger one is what Recycle replaces): creation times, not names, order it.
    expect(
      [`${a} and ${b}`, `${b} and ${a}`].map((pair) => `${pair} both leave from 198.51.100.7`),
    ).toContain(distinct?.message.match(/\S+ and \S+ both leave from 198\.51\.100\.7/)?.[0]);
    // Keep (the default): both stay.
    expect((await members()).map((m) => m.metadata.name)).toEqual(expect.arrayContaining([a, b]));

    await setStatus(b, { egressIP: '198.51.100.8' });
    await ctl.reconcileAll(signal);
    const after = (await pool()).status as unknown as { conditions: { type: string; status: string }[] };
    expect(after.conditions.find((c) => c.type === 'DistinctEgress')?.status).toBe('True');
  });
});
