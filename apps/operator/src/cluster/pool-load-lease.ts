import {
  CoordinationV1Api,
  type KubeConfig,
  PatchStrategy,
  type V1Lease,
  V1MicroTime,
} from '@kubernetes/client-node';
import type { LoadReport } from '../pool/autoscale-plan.js';
import { kubeCall } from './kube-call-options.js';
import { isKubeNotFound } from './kube-errors.js';

/** The label on a gateway replica's load Lease: the pool it reports on. */
export const POOL_LOAD_LABEL = 'egress-proxies.dev/pool-load';
/** The annotation holding the report (JSON: at, activeConnections, requestsPerSecond, waiting, busy). */
export const LOAD_ANNOTATION = 'egress-proxies.dev/load';
/** At most this many members' busy counts per report: the annotation stays well under its limit. */
const MAX_BUSY_MEMBERS = 2000;
/** A report older than this is left out: its replica stopped reporting (gone, or cut off). */
export const LOAD_STALE_MS = 30_000;

/** One Lease per gateway replica and pool: the least a gateway needs is create and patch on Leases. */
export const loadLeaseName = (pool: string, replica: string): string =>
  `${pool}-load-${replica}`
    .toLowerCase()
    .replace(/[^a-z0-9.-]/g, '-')
    .slice(0, 253)
    .replace(/[^a-z0-9]+$/, '');

/** The Pod a replica runs in (the chart passes its name and UID through the downward API). */
export interface ReplicaPod {
  name: string;
  uid: string;
}

/**
 * The replica's Pod from the environment the chart sets (`POD_NAME`, `POD_UID`), if both are set.
 * A Lease owned by its Pod is deleted by the cluster's garbage collector with the Pod, so a
 * rollout (new Pod names) leaves no Lease behind.
 */
export function replicaPodFromEnv(env: NodeJS.ProcessEnv = process.env): ReplicaPod | undefined {
  const name = env.POD_NAME?.trim();
  const uid = env.POD_UID?.trim();
  return name && uid ? { name, uid } : undefined;
}

/**
 * Writes this replica's load on `pool` (creating its Lease the first time, owned by `owner`
 * when given).
 */
export async function writeLoadReport(
  kc: KubeConfig,
  at: { namespace: string; pool: string; replica: string; owner?: ReplicaPod },
  load: Omit<LoadReport, 'source'>,
  signal: AbortSignal,
): Promise<void> {
  const api = kc.makeApiClient(CoordinationV1Api);
  const name = loadLeaseName(at.pool, at.replica);
  const busy = Object.entries(load.busy ?? {}).filter(([, n]) => n > 0);
  const report = JSON.stringify({
    at: load.at,
    activeConnections: load.activeConnections,
    requestsPerSecond: load.requestsPerSecond,
    waiting: load.waiting,
    // The members with open connections or sessions (an annotation holds far more than a pool's).
    ...(busy.length ? { busy: Object.fromEntries(busy.slice(0, MAX_BUSY_MEMBERS)) } : {}),
  });
  const body = {
    metadata: { labels: { [POOL_LOAD_LABEL]: at.pool }, annotations: { [LOAD_ANNOTATION]: report } },
    spec: { holderIdentity: at.replica, renewTime: new V1MicroTime(load.at) },
  };
  try {
    await api.patchNamespacedLease(
      { name, namespace: at.namespace, body },
      kubeCall({ signal, contentType: PatchStrategy.MergePatch }),
    );
  } catch (err) {
    if (!isKubeNotFound(err)) throw err;
    const lease: V1Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      ...body,
      metadata: {
        ...body.metadata,
        name,
        ...(at.owner
          ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: at.owner.name, uid: at.owner.uid }] }
          : {}),
      },
    };
    await api.createNamespacedLease({ namespace: at.namespace, body: lease }, kubeCall({ signal }));
  }
}

/** Every gateway replica's report on `pool`; a report that does not parse is left out. */
export async function readLoadReports(
  kc: KubeConfig,
  namespace: string,
  pool: string,
  signal: AbortSignal,
): Promise<LoadReport[]> {
  const api = kc.makeApiClient(CoordinationV1Api);
  const list = await api.listNamespacedLease(
    { namespace, labelSelector: `${POOL_LOAD_LABEL}=${pool}` },
    kubeCall({ signal }),
  );
  return list.items.flatMap((l) => {
    const r = parseReport(l.metadata?.annotations?.[LOAD_ANNOTATION]);
    return r ? [{ source: l.spec?.holderIdentity ?? l.metadata?.name ?? '', ...r }] : [];
  });
}

function parseReport(text: string | undefined): Omit<LoadReport, 'source'> | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    const n = (k: string) =>
      typeof v[k] === 'number' && Number.isFinite(v[k]) && (v[k] as number) >= 0
        ? (v[k] as number)
        : undefined;
    const at = n('at');
    const activeConnections = n('activeConnections');
    const requestsPerSecond = n('requestsPerSecond');
    const waiting = n('waiting');
    if (
      at === undefined ||
      activeConnections === undefined ||
      requestsPerSecond === undefined ||
      waiting === undefined
    )
      return undefined;
    const busy = parseBusy(v.busy);
    return { at, activeConnections, requestsPerSecond, waiting, ...(busy ? { busy } : {}) };
  } catch {
    return undefined;
  }
}

/** `{member: count}` with counts that are finite and not negative; anything else is left out. */
function parseBusy(v: unknown): Record<string, number> | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const out: Record<string, number> = {};
  for (const [member, n] of Object.entries(v))
    if (typeof n === 'number' && Number.isFinite(n) && n >= 0) out[member] = n;
  return Object.keys(out).length ? out : undefined;
}
