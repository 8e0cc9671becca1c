import type { InstanceState } from './instance-state.js';

/** What a provider reports about one machine it manages. */
export interface Instance {
  /** The provider ID, as returned by `create` (for example `hosts/h1/domains/proxy-ab12`). */
  id: string;
  /** The owning Proxy's UID read back from the backend's mark; empty when the mark has none. */
  uid: string;
  /**
   * See `InstanceState`. In `listByTag` results it is whatever the listing itself says (no extra
   * backend call is made for it), and garbage collection does not read it.
   */
  state: InstanceState;
  /** The address clients connect to; present only when `state` is `Running`. */
  ip?: string;
  /**
   * The port clients connect to, when it differs from the request's port (a provider that runs
   * several proxies on one address allocates ports); absent means the request's port.
   */
  port?: number;
  /** When the instance was created, read back from the backend; `undefined` when unknown. */
  createdAt?: Date;
  /** The installation id read back from the mark, when the backend carries one. */
  installation?: string;
  /**
   * The egress addresses assigned to this instance (see the profile's `egress` axis), read back
   * from the backend: what the far end should see as the source of the proxy's connections.
   * Absent when the egress is shared or not known to the provider.
   */
  egress?: InstanceEgress;
}

/** Egress addresses assigned to one instance, one per configured family. */
export interface InstanceEgress {
  /** The IPv4 address the instance's connections leave from. */
  ipv4?: string;
  /** The IPv6 address the instance's connections leave from. */
  ipv6?: string;
  /**
   * An IPv6 prefix (CIDR) the instance rotates its source address within, one address per
   * outgoing connection; set instead of, or beside, `ipv6`.
   */
  ipv6Prefix?: string;
}

/**
 * A secondary resource (volume, seed ISO, disk) that a provider can list without its machine,
 * so garbage collection can find what a crash between two create steps left behind.
 */
export interface SecondaryResource {
  /** An ID the provider's `deleteSecondary` accepts. */
  id: string;
  /** What it is, for logs and events: `volume`, `seed-iso`, `disk`, ... */
  kind: string;
  /** The deterministic instance name it belongs to. */
  instanceName: string;
  uid?: string;
  installation?: string;
  createdAt?: Date;
}
