/** What the status page shows: the JSON of `/api/status` and of each server-sent event. */
export interface StatusPageData {
  updatedAt: string;
  pools: StatusPagePool[];
  /** Each configured provider's last health check (absent where the operator has none). */
  providers?: StatusPageProvider[];
  /** The most recent things that happened, oldest first (a bounded ring). */
  events?: StatusPageEvent[];
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
  /** The zone its template or the pool's spread placed it in. */
  zone?: string;
  /** `ip:port`, where the gateway reaches it. */
  address?: string;
  /** The egress addresses its provider assigned (IPv4, IPv6 or prefix, comma-separated). */
  assignedEgress?: string;
  /** The address the probe target saw. */
  seenEgress?: string;
  /** When the pool created it (ISO time); the page shows its age from this. */
  createdAt?: string;
  ready: boolean;
  cooledDown: boolean;
  /** When its cooldown ends (ISO time), while cooled down. */
  cooledDownUntil?: string;
  /**
   * Since when it drains (ISO time): the pool chose it to go while it still carried connections,
   * so it takes no new requests and goes once the gateway reports it idle or the drain times out.
   */
  drainingSince?: string;
  /** What the pool's gateway counted for it since the gateway started (absent with no gateway). */
  traffic?: StatusPageTraffic;
}

/** A member's counters in the gateway, since the gateway started. */
export interface StatusPageTraffic {
  /** Plain-HTTP requests and CONNECT tunnels sent through it. */
  requests: number;
  /** Bytes relayed both ways. */
  bytes: number;
  /** Connections that ended in a failure (its own, a ban status, a dead target); a client's abort is none. */
  errors: number;
  /** Requests per second over the last sampling window (about a second or more). */
  requestsPerSecond: number;
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

/** A provider's health as its checker last saw it: no credentials, no free-form details. */
export interface StatusPageProvider {
  name: string;
  /** The provider type (kvm, proxmox, gce, kube, local). */
  type?: string;
  ready?: boolean;
  /** Why the check itself could not run, when it could not. */
  message?: string;
  lastCheckTime?: string;
  targets: StatusPageHealthTarget[];
}

export interface StatusPageHealthTarget {
  /** What was checked: a host, node, project or API server. */
  target: string;
  ready: boolean;
  reason: string;
  message?: string;
  lastCheckTime?: string;
}

/** The error classes a provider failure is sorted into at its source. */
export type StatusPageErrorClass = 'NotFound' | 'Permanent' | 'Transient' | 'QuotaExceeded' | 'Aborted';

export interface StatusPageEvent {
  time: string;
  type: 'Normal' | 'Warning';
  /** What it happened to: `namespace/name` of a Proxy (a pool's member) or a pool. */
  subject: string;
  /** Ready, Deleted, CooledDown, Recovered, ScalingUp, Failed, QuotaExceeded... */
  reason: string;
  message: string;
  /** For a provider's failure: its class. */
  errorClass?: StatusPageErrorClass;
}
