import { type KubeControlPlane, startKubeControlPlane } from '@egress-proxies/testenv-kube';
import { parse } from 'yaml';
import { crdFiles } from '../../src/api/crd.js';

/** A cold machine builds the control plane from Go modules first; later starts take seconds. */
export const CONTROL_PLANE_BUDGET_MS = 45 * 60_000;

/** Polls `fn` until it returns a truthy value; fails with `what` and the last value after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T> | T,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}; last: ${last instanceof Error ? last.message : JSON.stringify(last)}`,
      );
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Starts a control plane and installs the operator's CRDs (waiting until they are Established). */
export async function startClusterWithCrds(): Promise<KubeControlPlane> {
  const cp = await startKubeControlPlane();
  try {
    await installCrds(cp);
  } catch (err) {
    // The caller gets no control plane to stop: stop it here, or its etcd and API server outlive
    // the test that failed.
    await cp.stop().catch(() => {});
    throw err;
  }
  return cp;
}

async function installCrds(cp: KubeControlPlane): Promise<void> {
  for (const text of Object.values(crdFiles())) {
    const crd = parse(text) as { metadata: { name: string } };
    const r = await cp.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    if (r.status !== 201) throw new Error(`installing CRD ${crd.metadata.name}: ${r.status} ${r.body}`);
  }
  for (const text of Object.values(crdFiles())) {
    const name = (parse(text) as { metadata: { name: string } }).metadata.name;
    await waitFor(`CRD ${name} Established`, async () => {
      const r = await cp.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
      const conds =
        r.json<{ status?: { conditions?: { type: string; status: string }[] } }>().status?.conditions ?? [];
      return conds.some((c) => c.type === 'Established' && c.status === 'True');
    });
  }
  // The discovery of a fresh group can lag the Established condition by a moment.
  await waitFor(
    'the egress-proxies.dev API served',
    async () => (await cp.request('GET', '/apis/egress-proxies.dev/v1alpha1/proxies')).status === 200,
  );
}
