import type { KubeCluster } from '@egress-proxies/testenv-kube';
import { waitForProgress } from './progress.js';

interface PodStatus {
  phase?: string;
  podIP?: string;
  conditions?: { type: string; status: string }[];
  containerStatuses?: {
    ready: boolean;
    restartCount: number;
    state?: Record<string, { reason?: string; message?: string }>;
  }[];
}
export interface Pod {
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    annotations?: Record<string, string>;
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[];
  };
  spec: Record<string, unknown>;
  status?: PodStatus;
}

/** A short, changing summary of Pods: phase, readiness, container states, restarts. */
export function describePods(pods: Pod[]): string {
  return pods
    .map((p) => {
      const cs = (p.status?.containerStatuses ?? [])
        .map(
          (c) =>
            `${Object.keys(c.state ?? {}).join('')}${c.state?.waiting?.reason ? `:${c.state.waiting.reason}` : ''}/ready=${c.ready}/restarts=${c.restartCount}`,
        )
        .join(',');
      return `${p.metadata.name}=${p.status?.phase ?? '?'}[${cs}]`;
    })
    .join(' ');
}

export async function getJson<T>(cluster: KubeCluster, path: string): Promise<T | undefined> {
  const r = await cluster.request('GET', path);
  if (r.status === 404) return undefined;
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.body}`);
  return r.json<T>();
}

export async function mustRequest(
  cluster: KubeCluster,
  method: string,
  path: string,
  body?: unknown,
  contentType?: string,
) {
  const r = await cluster.request(method, path, body, contentType ? { contentType } : {});
  if (r.status < 200 || r.status > 299) throw new Error(`${method} ${path}: ${r.status} ${r.body}`);
  return r;
}

export async function listPods(cluster: KubeCluster, namespace: string, selector?: string): Promise<Pod[]> {
  const q = selector ? `?labelSelector=${encodeURIComponent(selector)}` : '';
  return (await getJson<{ items: Pod[] }>(cluster, `/api/v1/namespaces/${namespace}/pods${q}`))?.items ?? [];
}

const isReady = (p: Pod) =>
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** Waits for a Deployment's Pods to be all Ready at its spec's replica count; returns them. */
export async function deploymentReady(cluster: KubeCluster, namespace: string, name: string): Promise<Pod[]> {
  return waitForProgress(`Deployment ${namespace}/${name} Ready`, async () => {
    const d = await getJson<{
      spec: { replicas: number; selector: { matchLabels: Record<string, string> } };
      status?: { readyReplicas?: number; updatedReplicas?: number };
    }>(cluster, `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`);
    if (!d) return { progress: 'no Deployment yet' };
    const selector = Object.entries(d.spec.selector.matchLabels)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const pods = (await listPods(cluster, namespace, selector)).filter(
      (p) => !('deletionTimestamp' in p.metadata),
    );
    const ready = pods.filter(isReady);
    const done =
      ready.length === d.spec.replicas &&
      pods.length === d.spec.replicas &&
      d.status?.updatedReplicas === d.spec.replicas;
    return { ...(done ? { done: ready } : {}), progress: describePods(pods) };
  });
}

/** The Lease's holder once it is one of `pods` (holder identities are `<pod name>-<suffix>`). */
export async function leaseHeldBy(
  cluster: KubeCluster,
  namespace: string,
  lease: string,
  pods: Pod[],
): Promise<Pod> {
  return waitForProgress(`Lease ${namespace}/${lease} taken`, async () => {
    const l = await getJson<{ spec?: { holderIdentity?: string } }>(
      cluster,
      `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${lease}`,
    );
    const holder = l?.spec?.holderIdentity ?? '';
    const pod = pods.find((p) => holder.startsWith(`${p.metadata.name}-`));
    return { ...(pod ? { done: pod } : {}), progress: holder || 'no holder' };
  });
}

/** GET through the apiserver's Pod proxy (`/api/v1/namespaces/<ns>/pods/<name>:<port>/proxy/<path>`). */
export async function podHttpGet(
  cluster: KubeCluster,
  pod: Pod,
  port: number,
  path: string,
): Promise<string> {
  const r = await mustRequest(
    cluster,
    'GET',
    `/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}:${port}/proxy${path}`,
  );
  return r.body;
}

/** Runs a Pod to completion and returns its phase and log. */
export async function runPod(
  cluster: KubeCluster,
  namespace: string,
  pod: Record<string, unknown> & { metadata: { name: string } },
) {
  await mustRequest(cluster, 'POST', `/api/v1/namespaces/${namespace}/pods`, pod);
  const path = `/api/v1/namespaces/${namespace}/pods/${pod.metadata.name}`;
  const phase = await waitForProgress(`Pod ${namespace}/${pod.metadata.name} done`, async () => {
    const p = await getJson<Pod>(cluster, path);
    const ph = p?.status?.phase;
    return {
      ...(ph === 'Succeeded' || ph === 'Failed' ? { done: ph } : {}),
      progress: p ? describePods([p]) : 'absent',
    };
  });
  const log = (await mustRequest(cluster, 'GET', `${path}/log`)).body;
  return { phase, log };
}

/** Waits until GET `path` answers 404. */
export function gone(cluster: KubeCluster, what: string, path: string): Promise<true> {
  return waitForProgress(`${what} gone`, async () => {
    const r = await cluster.request('GET', path);
    if (r.status === 404) return { done: true as const, progress: 'gone' };
    const o =
      r.status === 200
        ? r.json<{ metadata?: { deletionTimestamp?: string; finalizers?: string[] }; status?: unknown }>()
        : undefined;
    return {
      progress: `${r.status} ${JSON.stringify(o?.metadata?.finalizers ?? [])} ${o?.metadata?.deletionTimestamp ?? ''} ${JSON.stringify(o?.status ?? '')}`,
    };
  });
}
