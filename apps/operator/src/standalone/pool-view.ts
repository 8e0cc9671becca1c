import type { ProxyObject } from '../api/proxy.js';
import type { PoolMemberStatus } from '../api/proxy-pool.js';
import type { RunningGateway } from '../gateway/gateway-server.js';
import type { AutoscaleDecision } from '../pool/autoscale-plan.js';
import { type DistinctEgressVerdict, distinctEgressCondition } from '../pool/distinct-egress.js';
import type { PoolDocument } from '../pool/pool-documents.js';
import { poolMemberStatus } from '../pool/pool-member.js';
import { templateHash } from '../pool/template-hash.js';
import type { MemberRecord, PoolAutoscaleView } from './member-file.js';
import { autoscaleView } from './pool-autoscale.js';

/** What `up` shows about a pool: the counts and members of the cluster's status, by the same names. */
export interface PoolView {
  key: string;
  /** spec.replicas: how many members the pool wants. */
  desired: number;
  /** Members that exist. */
  replicas: number;
  ready: number;
  /** Members made from the current template. */
  updated: number;
  members: PoolMemberStatus[];
  /** The in-process gateway's URL. */
  gateway?: string;
  /** Its SOCKS5 listener's `socks5h://host:port`, when `--gateway-socks-listen` asked for one. */
  gatewaySocks?: string;
  /** Members chosen to go that still carry connections: they get no new work, and go when those end. */
  draining?: string[];
  /** Whether the Ready members leave from distinct addresses, as the cluster's DistinctEgress condition says. */
  distinctEgress?: DistinctEgressVerdict;
  /** With spec.autoscale: the bounds, the load the gateway saw and why the size is what it is. */
  autoscale?: PoolAutoscaleView;
}

/** A member of a pool under `up` entered or left cooldown; `view` is the pool as it is now. */
export interface PoolMemberChange {
  view: PoolView;
  member: string;
  cooledDown: boolean;
  reason?: string;
}

/** The autoscaler of a pool under `up` changed its size or its reason. */
export interface PoolScaleChange {
  pool: string;
  from: number;
  to: number;
  /** The Scaling reason (ScalingUp, ScalingDown, Idle, WakingOnDemand...) and its message. */
  reason: string;
  message: string;
}

/** What a pool's view is made from: its document, its member records and what the run knows of them now. */
export interface PoolViewInput {
  key: string;
  doc: PoolDocument;
  records: readonly MemberRecord[];
  /** A member's Proxy as the store has it, and whether the gateway has it cooled down. */
  observe: (m: MemberRecord) => { proxy: ProxyObject; cooledDown: boolean };
  /** The size the pool wants now. */
  desired: number;
  gateway: RunningGateway | undefined;
  /** The autoscaler's last decision, with spec.autoscale. */
  decision: AutoscaleDecision | undefined;
}

/** A pool as `up` shows it, by the names of the cluster's status. */
export function poolView({
  key,
  doc: d,
  records,
  observe,
  desired,
  gateway: g,
  decision,
}: PoolViewInput): PoolView {
  const members = records.map((m) => {
    const { proxy, cooledDown } = observe(m);
    return poolMemberStatus(proxy, {
      cooledDown,
      createdAt: new Date(m.createdAt).toISOString(),
      ...(m.draining ? { drainingSince: m.draining.since } : {}),
    });
  });
  const hash = templateHash(d.spec.template);
  const draining = records.filter((m) => m.draining).map((m) => m.name);
  const as = d.spec.autoscale;
  return {
    key,
    desired,
    replicas: members.length,
    ready: members.filter((m) => m.ready).length,
    updated: records.filter((m) => m.templateHash === hash).length,
    members,
    ...(draining.length ? { draining } : {}),
    ...(g ? { gateway: g.url } : {}),
    ...(g?.socks ? { gatewaySocks: g.socks.url } : {}),
    distinctEgress: distinctEgressCondition(
      records.map((m, i) => ({
        name: m.name,
        createdAt: m.createdAt,
        ready: members[i]?.ready ?? false,
        ...(members[i]?.egressIP ? { egressIP: members[i]?.egressIP } : {}),
      })),
      d.spec.rotation?.onDuplicateEgress,
    ),
    ...(as ? { autoscale: autoscaleView(as, decision) } : {}),
  };
}
