import type { PoolMemberStatus } from '../api/proxy-pool.js';
import type { DistinctEgressVerdict } from '../pool/distinct-egress.js';
import type { PoolAutoscaleView } from './member-file.js';

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
