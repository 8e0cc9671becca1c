import {
  type DrainEnd,
  type DrainingMember,
  drainsEnded,
  type OpenConnections,
  reinstated,
} from '../pool/member-drain.js';
import type { PoolPlan } from '../pool/plan-pool.js';
import type { MemberRecord } from './member-file.js';

/**
 * The drain's bookkeeping on a pool's member records under `up`: which are marked draining, which
 * are deleted when their drain ends and which serve again. The rules are pool/member-drain's; this
 * is how they read and write the member records kept in pools.json.
 */

/** The members a plan's deletions leave: those deleted now are gone, those still busy are marked draining. */
export function markDeletions(
  members: readonly MemberRecord[],
  deleteNow: PoolPlan['delete'],
  drain: readonly DrainingMember[],
): MemberRecord[] {
  const gone = new Set(deleteNow.map((x) => x.name));
  const drained = new Map(drain.map((x) => [x.name, x]));
  return members
    .filter((m) => !gone.has(m.name))
    .map((m) => {
      const x = drained.get(m.name);
      return x ? { ...m, draining: { since: x.since, reason: x.reason } } : m;
    });
}

/** What settling a pool's drains changed: its members now, the drains that ended and the members back in service. */
export interface SettledDrains {
  members: MemberRecord[];
  ended: DrainEnd[];
  back: Set<string>;
}

/**
 * Ends the drains that are done (the member's last connection closed, or the drain timeout
 * passed: it is deleted) and takes draining members back when the pool wants more members than
 * it keeps (`desired`). Undefined when nothing changed.
 */
export function settleDrains(
  members: readonly MemberRecord[],
  opts: { open: OpenConnections; now: number; timeoutMs: number; desired: number },
): SettledDrains | undefined {
  const draining: DrainingMember[] = members.flatMap((m) =>
    m.draining ? [{ name: m.name, ...m.draining }] : [],
  );
  if (!draining.length) return undefined;
  const ended = drainsEnded(draining, opts.open, opts.now, opts.timeoutMs);
  const gone = new Set(ended.map((e) => e.name));
  const serving = members.filter((m) => !m.draining).length;
  const back = new Set(
    reinstated(
      draining.filter((x) => !gone.has(x.name)),
      opts.desired - serving,
    ),
  );
  if (!gone.size && !back.size) return undefined;
  const next = members
    .filter((m) => !gone.has(m.name))
    .map((m) => {
      if (!back.has(m.name)) return m;
      const { draining: _, ...rest } = m;
      return rest;
    });
  return { members: next, ended, back };
}
