import { duplicateEgress } from './distinct-egress.js';
import { nextTarget, type SpreadTarget, spreadCounts, spreadKey } from './spread.js';

/** A pool member as the planner sees it. */
export interface PlanMember {
  name: string;
  provider?: string;
  zone?: string;
  createdAt: number;
  ready: boolean;
  /** The template hash it was made from. */
  templateHash: string;
  /** The gateway cooled it down (a ban or failed connects). */
  cooledDown?: boolean;
  /** The address its probe target saw (status.egressIP). */
  egressIP?: string;
  /** Open connections and live sessions the gateway has on it (scale-down takes idle members first). */
  busy?: number;
}

export interface PlanInput {
  replicas: number;
  templateHash: string;
  targets: readonly SpreadTarget[];
  maxAgeMs?: number;
  maxSurge: number;
  minReady: number;
  recycleBanned: boolean;
  /** `rotation.onDuplicateEgress: Recycle`: the younger of two Ready members seen from one address is replaced. */
  recycleDuplicateEgress?: boolean;
  /** A member named by the recycle annotation. */
  recycle?: string;
  members: readonly PlanMember[];
  now: number;
}

export interface PoolPlan {
  create: SpreadTarget[];
  /** Members to delete, each with why. */
  delete: { name: string; reason: 'scale-down' | 'replaced' }[];
  /** Members due for replacement (old, outdated, recycled, banned), deleted or not yet. */
  doomed: string[];
}

const newestFirst = (a: PlanMember, b: PlanMember) => b.createdAt - a.createdAt || (a.name < b.name ? 1 : -1);
const oldestFirst = (a: PlanMember, b: PlanMember) => a.createdAt - b.createdAt || (a.name < b.name ? -1 : 1);

const leastBusyFirst = (a: PlanMember, b: PlanMember) => (a.busy ?? 0) - (b.busy ?? 0) || oldestFirst(a, b);

/**
 * Scale-down order: members that are not Ready, newest first, then the Ready ones with no
 * connections and no sessions, oldest first, then the busy ones, least busy first (their clients
 * move least).
 */
export function removalOrder(members: readonly PlanMember[]): PlanMember[] {
  return [
    ...members.filter((m) => !m.ready).sort(newestFirst),
    ...members.filter((m) => m.ready).sort(leastBusyFirst),
  ];
}

/**
 * One step of the pool controller (pure): what to create and delete so the pool moves toward
 * `replicas` up-to-date members, replacing old ones surge-first (the replacement Ready before the
 * old one goes) and never taking the Ready count below `minReady` (or below `replicas`, when the
 * pool is sized smaller than that).
 */
export function planPool(p: PlanInput): PoolPlan {
  const duplicates = p.recycleDuplicateEgress ? duplicateEgress(p.members).younger : new Set<string>();
  const isDoomed = (m: PlanMember) =>
    duplicates.has(m.name) ||
    m.templateHash !== p.templateHash ||
    m.name === p.recycle ||
    (p.recycleBanned && m.cooledDown === true) ||
    (p.maxAgeMs !== undefined && p.now - m.createdAt >= p.maxAgeMs);
  const doomed = p.members.filter(isDoomed);
  const keep = p.members.filter((m) => !isDoomed(m));
  const del: PoolPlan['delete'] = [];
  let ready = p.members.filter((m) => m.ready).length;
  // minReady guards the pool's size against a rotation, never beyond it: an autoscaled pool sized
  // below minReady (going to sleep) must not keep outdated members forever as stand-ins.
  const minReady = Math.min(p.minReady, p.replicas);

  // Too many keepers: the surplus goes in removal order; doomed ones are all surplus then.
  const surplus = Math.max(0, keep.length - p.replicas);
  for (const m of removalOrder(keep).slice(0, surplus)) {
    del.push({ name: m.name, reason: 'scale-down' });
    if (m.ready) ready--;
  }
  const kept = keep.length - surplus;

  // Replacements: up to replicas keepers, within replicas + maxSurge members in all.
  const live = p.members.length - del.length;
  const room = Math.max(0, p.replicas + p.maxSurge - live);
  const toCreate = Math.min(Math.max(0, p.replicas - kept), room);
  const have = new Map<string, number>();
  for (const m of keep)
    if (!del.some((d) => d.name === m.name)) have.set(spreadKey(m), (have.get(spreadKey(m)) ?? 0) + 1);
  const wanted = spreadCounts(p.targets, p.replicas);
  const create: SpreadTarget[] = [];
  for (let i = 0; i < toCreate; i++) {
    const t = nextTarget(p.targets, wanted, have) ?? p.targets[0];
    if (!t) break;
    create.push(t);
    have.set(spreadKey(t), (have.get(spreadKey(t)) ?? 0) + 1);
  }

  // A Ready doomed member stays only as a stand-in for a missing Ready keeper (so the
  // replacement is Ready before it goes), and never when that would go below minReady; one that
  // is not Ready serves nothing and goes at once.
  const readyKept = keep.filter((m) => m.ready && !del.some((d) => d.name === m.name)).length;
  const readyDoomed = doomed.filter((m) => m.ready).length;
  let spare = Math.max(0, readyDoomed - Math.max(0, p.replicas - readyKept));
  for (const m of removalOrder(doomed)) {
    if (!m.ready) {
      del.push({ name: m.name, reason: 'replaced' });
      continue;
    }
    if (spare <= 0 || ready - 1 < minReady) break;
    spare--;
    del.push({ name: m.name, reason: 'replaced' });
    ready--;
  }
  return { create, delete: del, doomed: doomed.map((m) => m.name) };
}
