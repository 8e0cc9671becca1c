import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { OpLogger } from '../domain/op-logger.js';
import type { GatewayStats } from './gateway-stats.js';
import type { MemberTable } from './member-table.js';
import type { Outcome } from './outcomes.js';
import type { ClientIdentity } from './session.js';

/** The header that names the member a response (or a tunnel's 200) came through. */
export const MEMBER_HEADER = 'x-egress-member';
/**
 * A ban report: an authenticated client names the member (as `x-egress-member` named it) whose
 * answer was a ban the gateway could not see, inside a tunnel. The member is cooled down as a ban
 * status would cool it, and the request carrying the header already goes elsewhere.
 */
export const BAN_REPORT_HEADER = 'x-egress-ban';
/** Set when the session's member left (or was cooled down) and the session moved. */
export const MOVED_HEADER = 'x-egress-session-moved';

/** What the plain-HTTP and the CONNECT handlers share with the server that runs them. */
export interface GatewayContext {
  readonly pool: string;
  readonly members: MemberTable;
  readonly stats: GatewayStats;
  readonly log: OpLogger;
  /** Whether debug lines are written at all (so the data path does not build them for nothing). */
  readonly debug: boolean;
  /** Member answers that cool the member down; replaced when the pool's spec changes. */
  banStatuses: ReadonlySet<number>;
  /** Plain HTTP without a session: a member per request, or per client connection. */
  rotate: 'per-request' | 'per-connection';
  /** Under `per-connection`: the member each client connection's requests go to. */
  readonly pinned: WeakMap<object, string>;
  /** How long the gateway waits for a member to accept a connection (then it is the member's failure). */
  readonly connectTimeoutMs: number;
  /** How long a connected member may take to answer (a slow origin: 504, nobody cooled down). */
  readonly answerTimeoutMs: number;
  /** Members tried for one connection whose connect fails. */
  readonly attempts: number;
  /** Open client and member sockets, for the drain. */
  readonly sockets: Set<Socket | Duplex>;
  authorized(id: ClientIdentity): boolean;
  draining(): boolean;
  /** Counts a connection on `member` (active gauge, least-connections) until the returned function runs. */
  hold(member: string): () => void;
  /**
   * A connection through `member` ended in `outcome`: counted under that label, logged with it
   * as the reason, and the member cooled down only when the outcome is its own fault.
   */
  outcome(member: string, outcome: Outcome, detail?: string): void;
}

/** Reads pino's level check when the logger has one (the operator's does; test sinks may not). */
export function debugEnabled(log: OpLogger): boolean {
  const check = (log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled;
  return typeof check === 'function' ? check.call(log, 'debug') : true;
}
