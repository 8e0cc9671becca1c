import { freshReports, type LoadReport } from './autoscale-plan.js';
import type { PoolPlan } from './plan-pool.js';

/**
 * How long a member chosen to go may keep its open tunnels and in-flight requests before it is
 * deleted anyway. Long enough for a crawler's page load or a download to finish, short enough
 * that a tunnel held open for hours does not keep a scaled-down member (and its bill) alive.
 */
export const DEFAULT_DRAIN_TIMEOUT_MS = 120_000;

/** A member leaving its pool: it gets no new work, and goes when its connections end or time runs out. */
export interface DrainingMember {
  name: string;
  /** When it was chosen to go (ms since the epoch). */
  since: number;
  /** Why the planner chose it. */
  reason: PoolPlan['delete'][number]['reason'];
}

/** Connections open through a member now (tunnels, plain requests in flight), as the gateway counts them. */
export type OpenConnections = (member: string) => number;

/**
 * The planner's deletions split: a member with nothing open goes now; one still carrying
 * connections is drained first, so its clients' tunnels are not cut by a scale-down.
 */
export function splitDeletions(
  deletions: PoolPlan['delete'],
  open: OpenConnections,
  now: number,
): { deleteNow: PoolPlan['delete']; drain: DrainingMember[] } {
  const deleteNow: PoolPlan['delete'] = [];
  const drain: DrainingMember[] = [];
  for (const d of deletions)
    if (open(d.name) > 0) drain.push({ name: d.name, since: now, reason: d.reason });
    else deleteNow.push(d);
  return { deleteNow, drain };
}

/** A drained member that may be deleted now, and why now. */
export interface DrainEnd {
  name: string;
  why: 'drained' | 'drain-timeout';
}

/** The draining members done: their last connection ended, or they have drained for timeoutMs. */
export function drainsEnded(
  draining: readonly DrainingMember[],
  open: OpenConnections,
  now: number,
  timeoutMs: number,
): DrainEnd[] {
  const out: DrainEnd[] = [];
  for (const d of draining)
    if (open(d.name) === 0) out.push({ name: d.name, why: 'drained' });
    else if (now - d.since >= timeoutMs) out.push({ name: d.name, why: 'drain-timeout' });
  return out;
}

/**
 * Draining members taken back when the pool wants more members than it keeps (the load came back
 * during the drain): a member drained for a scale-down is still up to date and already carries
 * connections, so it serves again rather than a new one being made. The latest chosen come back
 * first (they drained least); members being replaced never come back.
 */
export function reinstated(draining: readonly DrainingMember[], wanted: number): string[] {
  if (wanted <= 0) return [];
  return draining
    .filter((d) => d.reason === 'scale-down')
    .sort((a, b) => b.since - a.since || (a.name < b.name ? -1 : 1))
    .slice(0, wanted)
    .map((d) => d.name);
}

/**
 * A gateway replica re-reads its pool every 2 s: a report made this long after a drain started
 * comes from a replica that has seen the member draining (it routes nothing new there), so its
 * count for the member can only fall.
 */
export const DRAIN_SEEN_MS = 3_000;

/**
 * The connections and sessions draining members still carry, from the gateway replicas' reports
 * (the cluster's view; under `up` the gateway is in-process and counts directly). A member counts
 * as busy (1) while some fresh replica has not reported since it saw the drain, and as idle when no
 * replica reports fresh at all: then no gateway routes through it.
 */
export function drainingLoad(
  draining: readonly DrainingMember[],
  reports: readonly LoadReport[],
  now: number,
  staleAfterMs: number,
): OpenConnections {
  const fresh = freshReports(reports, now, staleAfterMs);
  const since = new Map(draining.map((d) => [d.name, d.since]));
  return (name) => {
    const start = since.get(name);
    if (start === undefined) return 0;
    let n = 0;
    for (const r of fresh) {
      if (r.at < start + DRAIN_SEEN_MS) return Math.max(1, n);
      n += r.busy?.[name] ?? 0;
    }
    return n;
  };
}
