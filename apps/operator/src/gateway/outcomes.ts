/**
 * How a connection through a member ended, when it did not simply succeed. Each is a metric label
 * (`egress_proxies_gateway_failures_total{reason}`) and a log reason. Only the member's own
 * failures cool it down: a crawler cancelling requests, or a dead site, must never empty a pool.
 */
export type Outcome =
  /** The gateway could not open a TCP connection to the member (refused, unreachable, timed out). */
  | 'connect-failed'
  /** The member accepted the connection and closed it before answering a plain request. */
  | 'member-closed'
  /** The member reset the connection before answering. */
  | 'member-reset'
  /** The member answered something other than HTTP/1.x. */
  | 'member-garbage'
  /** The member relayed one of the pool's ban statuses (the label is `status-<code>`). */
  | `status-${number}`
  /** An authenticated client reported a ban the gateway could not see (inside a tunnel). */
  | 'reported-ban'
  /** The client went away first: its own choice, nobody's failure. */
  | 'client-abort'
  /**
   * A CONNECT the member closed without answering: that is how a proxy-chain member says its
   * target refused or could not be reached (Squid answers a 5xx instead, passed on as
   * `target-refused`). The member is fine; another member would meet the same dead target.
   */
  | 'target-unreachable'
  /** The member answered a CONNECT with a refusal that is no ban status (passed on to the client). */
  | 'target-refused'
  /** The member is connected but no answer came in time: a slow or black-holed target. */
  | 'target-timeout'
  /** An established tunnel's member socket failed mid-stream (after answering: not a cooldown). */
  | 'tunnel-reset'
  /** The member's answer broke off mid-body (after answering: not a cooldown). */
  | 'answer-cut';

const MEMBER_FAULTS: ReadonlySet<string> = new Set<Outcome>([
  'connect-failed',
  'member-closed',
  'member-reset',
  'member-garbage',
]);

/** Whether the outcome is the member's own failure (it is then cooled down); ban statuses too. */
export const isMemberFault = (o: Outcome): boolean =>
  MEMBER_FAULTS.has(o) || o === 'reported-ban' || o.startsWith('status-');

/** Whether another member is worth trying for the same connection (only when this one failed). */
export const worthRetrying = (o: Outcome): boolean => MEMBER_FAULTS.has(o);
