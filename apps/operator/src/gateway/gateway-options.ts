// The gateway's options, its handle and the checks that refuse a configuration before it starts.
import { POOL_ROTATES } from '../api/proxy-pool.js';
import type { OpLogger } from '../domain/op-logger.js';
import type { ProxyUsers } from './basic-auth.js';
import type { GatewayMetrics } from './gateway-metrics.js';
import type { GatewayStats } from './gateway-stats.js';
import { type GatewayLimits, resolveLimits } from './limits.js';
import { isLoopback } from './loopback.js';
import type {
  CooldownListener,
  MemberTable,
  MemberTableOptions,
  MemberTableSettings,
} from './member-table.js';
import type { GatewayLoad } from './pool-demand.js';
import type { RawHttpCounters } from './raw-http.js';

/** What the pool's spec.gateway can change while the gateway runs. */
export interface GatewaySettings extends MemberTableSettings {
  /** Member answers that mean "banned": the member is cooled down. */
  banStatuses?: readonly number[];
  /**
   * Plain HTTP without a session: `per-request` (the default) picks a member for every request,
   * also on a keep-alive connection, spreading a crawler's requests the most; `per-connection`
   * keeps a client connection's requests on one member while it stays eligible. Tunnels are one
   * connection each either way.
   */
  rotate?: Rotate;
}

/** Wake on demand (the pool's spec.autoscale.wakeTimeout). */
export interface WakeSettings {
  /** How long a request waits while the pool has no Ready member (0: not at all). */
  wakeTimeoutMs?: number;
}

export type Rotate = (typeof POOL_ROTATES)[number];
export const ROTATES: readonly Rotate[] = POOL_ROTATES;

export function rotateSetting(r: string): Rotate {
  if (!(ROTATES as readonly string[]).includes(r))
    throw new GatewayConfigError(`rotate ${JSON.stringify(r)}: expected one of ${ROTATES.join(', ')}`);
  return r as Rotate;
}

export interface GatewayOptions
  extends Omit<MemberTableOptions, 'onCooldown' | 'onRecover'>,
    GatewaySettings,
    WakeSettings,
    GatewayLimits {
  /** The pool's name: a metrics label and a log field. */
  pool: string;
  host?: string;
  port?: number;
  /**
   * A SOCKS5 listener beside the HTTP one (port 0: any free port), with the same users, members,
   * caps and attribution; off loopback it needs users too.
   */
  socks?: { host: string; port: number };
  /** Proxy users; without them the gateway listens on loopback only. */
  users?: ProxyUsers;
  /** How long to wait for a member to accept the TCP connection (default 10 s); past it the member is cooled down. */
  connectTimeoutMs?: number;
  /**
   * How long a connected member may take to answer CONNECT or send its response head (default
   * 60 s): past it the client gets 504 and nobody is cooled down (the origin is slow, not the member).
   */
  answerTimeoutMs?: number;
  /** Members tried for one connection whose connect fails (each failure cools that member down). */
  connectAttempts?: number;
  metrics?: GatewayMetrics;
  logger?: OpLogger;
  /**
   * A member entered cooldown, or a later ban moved its end: by this gateway (`local`, worth
   * sharing) or from a shared mark.
   */
  onCooldown?: CooldownListener;
  /** A member's cooldown ended (or the member left while cooled down). */
  onRecover?: (member: string) => void;
  /** A request waits for a pool with no Ready member: the pool should wake (see wakeTimeoutMs). */
  onWake?: () => void;
  /**
   * Serve well-formed plain-HTTP proxy requests on raw sockets, in front of Node's HTTP parser
   * (default true): the same routing, attribution, headers and limits at about a third of the
   * CPU per request. Any other request (CONNECT, HTTP/1.0, Expect, unusual framing, failed auth,
   * the drain, no eligible member) hands its connection to the `http` path, as with false.
   */
  rawHttp?: boolean;
}

export interface RunningGateway {
  readonly host: string;
  readonly port: number;
  /** `http://host:port`, for clients' `-x`. */
  readonly url: string;
  /** The SOCKS5 listener's address and `socks5h://host:port`, when one was asked for. */
  readonly socks?: { host: string; port: number; url: string };
  readonly members: MemberTable;
  readonly metrics: GatewayMetrics;
  /** Its counters per member (the status page reads them; Prometheus reads them through metrics). */
  readonly stats: GatewayStats;
  /** The pool's load as this gateway sees it, for the autoscaler. */
  load(): GatewayLoad;
  /** Applies new settings (the pool's spec changed); the listening address stays. */
  configure(settings: GatewaySettings & WakeSettings): void;
  /** Replaces the proxy users (a rotated Secret); a gateway off loopback cannot drop them all. */
  setUsers(users: ProxyUsers | undefined): void;
  /** Open client connections (tunnels and plain-HTTP keep-alive sockets). */
  openConnections(): number;
  /** Requests the raw plain-HTTP path served and connections it handed on (undefined when it is off). */
  readonly rawHttp: RawHttpCounters | undefined;
  /** Stops accepting, lets open connections finish for up to `graceMs`, then cuts the rest. */
  close(graceMs?: number): Promise<void>;
}

/** A gateway configuration that must not start (an open proxy, a bad option). */
export class GatewayConfigError extends Error {
  override name = 'GatewayConfigError';
}

export function banSet(statuses: readonly number[]): Set<number> {
  for (const s of statuses)
    if (!Number.isInteger(s) || s < 400 || s > 599)
      throw new GatewayConfigError(`ban status ${s}: expected an HTTP error status 400-599`);
  return new Set(statuses);
}

/** Never an open proxy: off loopback the gateway needs users. */
export function guardUsers(host: string, users: ProxyUsers | undefined): void {
  if (!users?.size && !isLoopback(host))
    throw new GatewayConfigError(
      `refusing to listen on ${host} without proxy users: a gateway reachable from other machines must require Basic auth (give it a users Secret), or listen on a loopback address`,
    );
}

/** The limits with their defaults; a bad one is a configuration error. */
export function checkedLimits(opts: GatewayOptions): Required<GatewayLimits> {
  try {
    return resolveLimits(opts);
  } catch (err) {
    throw new GatewayConfigError((err as Error).message);
  }
}
