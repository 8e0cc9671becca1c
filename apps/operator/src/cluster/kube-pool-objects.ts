// What the pool controller writes besides its API calls: the member Proxies it creates and the
// pieces of the pool's status (conditions, the drain note, the autoscaler's figures).
import { API_VERSION, PROXY } from '../api/group.js';
import type { Condition, ProxyObject } from '../api/proxy.js';
import {
  POOL_LABEL,
  PROXY_POOL,
  type ProxyPoolObject,
  type ProxyPoolSpec,
  type ProxyPoolStatus,
  TEMPLATE_HASH_LABEL,
} from '../api/proxy-pool.js';
import type { AutoscaleDecision } from '../pool/autoscale-plan.js';
import { distinctEgressCondition } from '../pool/distinct-egress.js';
import { memberName } from '../pool/member-name.js';
import type { PlanMember } from '../pool/plan-pool.js';
import type { SpreadTarget } from '../pool/spread.js';

/** A new member Proxy of the pool: owned by it (Kubernetes deletes it with the pool), on target's provider and zone. */
export function memberProxy(
  pool: ProxyPoolObject,
  template: ProxyPoolSpec['template'],
  t: SpreadTarget,
  hash: string,
): ProxyObject {
  const { namespace, name, uid } = pool.metadata;
  const placement = { ...template.placement, ...(t.zone ? { zone: t.zone } : {}) };
  return {
    apiVersion: API_VERSION,
    kind: PROXY.kind,
    metadata: {
      name: memberName(name),
      namespace,
      labels: { [POOL_LABEL]: name, [TEMPLATE_HASH_LABEL]: hash },
      ownerReferences: [
        {
          apiVersion: API_VERSION,
          kind: PROXY_POOL.kind,
          name,
          uid: uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    } as ProxyObject['metadata'],
    spec: {
      ...template,
      provider: t.provider,
      ...(Object.keys(placement).length ? { placement } : {}),
    },
  };
}

export const condition = (
  type: string,
  ok: boolean,
  reason: string,
  message: string,
  old?: Condition[],
): Condition => {
  const status = ok ? 'True' : 'False';
  const prev = old?.find((c) => c.type === type);
  return {
    type,
    status,
    reason,
    message,
    lastTransitionTime: prev?.status === status ? prev.lastTransitionTime : new Date().toISOString(),
  };
};

/** DistinctEgress over the members as observed this pass (before this pass's deletions). */
export function distinctEgress(
  members: readonly PlanMember[],
  onDuplicate: 'Keep' | 'Recycle' | undefined,
  old?: Condition[],
): Condition {
  const v = distinctEgressCondition(members, onDuplicate);
  const prev = old?.find((c) => c.type === 'DistinctEgress');
  return {
    type: 'DistinctEgress',
    status: v.status,
    reason: v.reason,
    message: v.message,
    lastTransitionTime: prev?.status === v.status ? prev.lastTransitionTime : new Date().toISOString(),
  };
}

/** The Scaling condition's note on the members still draining (none: nothing). */
export function drainingMessage(names: readonly string[]): string {
  if (!names.length) return '';
  return `; draining ${names.join(', ')} (no new requests; deleted once the gateways report ${names.length > 1 ? 'them' : 'it'} idle or the drain timeout passes)`;
}

/** status.autoscale from a decision (requests/s as a decimal string: the CRD has no float type). */
export function autoscaleStatus(d: AutoscaleDecision): NonNullable<ProxyPoolStatus['autoscale']> {
  return {
    desired: d.replicas,
    activeConnections: d.load.activeConnections,
    requestsPerSecond: (Math.round(d.load.requestsPerSecond * 100) / 100).toString(),
    waiting: d.load.waiting,
    lastActiveTime: new Date(d.lastActiveTime).toISOString(),
    ...(d.lastScaleTime !== undefined ? { lastScaleTime: new Date(d.lastScaleTime).toISOString() } : {}),
  };
}
