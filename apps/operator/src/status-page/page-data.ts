/** What the status page shows: the JSON of `/api/status` and of each server-sent event. */
export interface StatusPageData {
  updatedAt: string;
  pools: StatusPagePool[];
}

export interface StatusPagePool {
  /** `namespace/name`. */
  pool: string;
  desired: number;
  ready: number;
  /** The gateway's URL, while one runs. */
  gateway?: string;
  /** With autoscale: the bounds, the load the gateway sees and the Scaling reason. */
  autoscale?: StatusPageAutoscale;
  members: StatusPageMember[];
}

export interface StatusPageMember {
  name: string;
  provider?: string;
  /** `ip:port`, where the gateway reaches it. */
  address?: string;
  /** The egress addresses its provider assigned (IPv4, IPv6 or prefix, comma-separated). */
  assignedEgress?: string;
  /** The address the probe target saw. */
  seenEgress?: string;
  ready: boolean;
  cooledDown: boolean;
  /** When its cooldown ends (ISO time), while cooled down. */
  cooledDownUntil?: string;
}

/** A pool's autoscale state, as the cluster's status.autoscale and Scaling condition say it. */
export interface StatusPageAutoscale {
  min: number;
  max: number;
  activeConnections: number;
  requestsPerSecond: number;
  waiting: number;
  /** The Scaling condition's reason (ScalingUp, Idle, WakingOnDemand...) and message. */
  reason: string;
  message: string;
}
