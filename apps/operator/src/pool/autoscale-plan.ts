import { parseDuration } from '../api/duration.js';
import type { AutoscaleSpec } from '../api/proxy-pool.js';

/** One gateway replica's load on one pool, as it last reported it. */
export interface LoadReport {
  /** Who reported (a gateway replica): a newer report from it replaces the older. */
  source: string;
  /** When the report was made (ms since the epoch); older than the stale limit, it is ignored. */
  at: number;
  /** Connections open through the pool now (tunnels, requests in flight). */
  activeConnections: number;
  /** New requests and tunnels per second over the gateway's recent window. */
  requestsPerSecond: number;
  /** Requests held while the pool has no Ready member: the wake signal. */
  waiting: number;
  /**
   * Per member with any: its open connections plus its live sticky sessions on this replica. A
   * scale-down takes members no replica reports busy first.
   */
  busy?: Readonly<Record<string, number>>;
}

/**
 * Each member's open connections and sessions summed over the fresh reports (stale ones left out,
 * as for the size): what `removalOrder` sorts the Ready members by.
 */
export function busyByMember(
  reports: readonly LoadReport[],
  now: number,
  staleAfterMs: number,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of freshReports(reports, now, staleAfterMs))
    for (const [member, n] of Object.entries(r.busy ?? {})) out.set(member, (out.get(member) ?? 0) + n);
  return out;
}

/** The load the planner sizes for: the fresh reports summed. */
export interface PoolLoad {
  activeConnections: number;
  requestsPerSecond: number;
  waiting: number;
  /** How many reports were fresh. */
  reports: number;
}

/** Why the autoscaler chose the size it did (the Scaling condition's reason). */
export type ScalingReason =
  | 'WakingOnDemand'
  | 'ScalingUp'
  | 'ScalingDown'
  | 'AtMax'
  | 'Idle'
  | 'Steady'
  | 'WaitingToScaleDown'
  | 'Stabilizing'
  | 'External';

/** spec.autoscale with its durations in milliseconds. */
export interface AutoscalePolicy {
  scaler: 'Builtin' | 'External';
  minReplicas: number;
  maxReplicas: number;
  targetActiveConnections?: number;
  targetRequestsPerSecond?: number;
  scaleDownAfterMs: number;
  maxScaleUpStep: number;
  maxScaleDownStep: number;
  stepIntervalMs: number;
}

export interface AutoscaleInput {
  policy: AutoscalePolicy;
  /** spec.replicas now: the last decision, or what an outside scaler wrote. */
  current: number;
  reports: readonly LoadReport[];
  /** A report older than this is left out (its gateway replica may be gone). */
  staleAfterMs: number;
  now: number;
  /** When the load last needed the current size; scaleDownAfter counts from here. */
  lastActiveTime?: number;
  /** When the size last changed; the next step waits stepInterval from here. */
  lastScaleTime?: number;
}

export interface AutoscaleDecision {
  replicas: number;
  reason: ScalingReason;
  message: string;
  load: PoolLoad;
  /** What the load alone asks for (before min/max and step limits). */
  needed: number;
  lastActiveTime: number;
  lastScaleTime?: number;
}

/** The policy from a validated spec.autoscale. */
export function autoscalePolicy(spec: AutoscaleSpec): AutoscalePolicy {
  return {
    scaler: spec.scaler,
    minReplicas: spec.minReplicas,
    maxReplicas: spec.maxReplicas,
    ...(spec.targetActiveConnections !== undefined
      ? { targetActiveConnections: spec.targetActiveConnections }
      : {}),
    ...(spec.targetRequestsPerSecond !== undefined
      ? { targetRequestsPerSecond: spec.targetRequestsPerSecond }
      : {}),
    scaleDownAfterMs: parseDuration(spec.scaleDownAfter),
    maxScaleUpStep: spec.maxScaleUpStep,
    maxScaleDownStep: spec.maxScaleDownStep,
    stepIntervalMs: parseDuration(spec.stepInterval),
  };
}

/** The fresh reports summed, the newest per source (a replica's older report is superseded). */
export function sumLoad(reports: readonly LoadReport[], now: number, staleAfterMs: number): PoolLoad {
  const fresh = freshReports(reports, now, staleAfterMs);
  const load: PoolLoad = { activeConnections: 0, requestsPerSecond: 0, waiting: 0, reports: fresh.length };
  for (const r of fresh) {
    load.activeConnections += r.activeConnections;
    load.requestsPerSecond += r.requestsPerSecond;
    load.waiting += r.waiting;
  }
  return load;
}

/** The newest report of each source, those no older than `staleAfterMs`. */
/** The newest report of each replica, the stale ones left out. */
export function freshReports(
  reports: readonly LoadReport[],
  now: number,
  staleAfterMs: number,
): LoadReport[] {
  const newest = new Map<string, LoadReport>();
  for (const r of reports) {
    if (now - r.at > staleAfterMs) continue;
    const had = newest.get(r.source);
    if (!had || had.at < r.at) newest.set(r.source, r);
  }
  return [...newest.values()];
}

/** Members the load needs: the larger of its two targets' answers; one while a request waits. */
export function membersNeeded(policy: AutoscalePolicy, load: PoolLoad): number {
  const byConnections = policy.targetActiveConnections
    ? Math.ceil(load.activeConnections / policy.targetActiveConnections)
    : 0;
  const byRate = policy.targetRequestsPerSecond
    ? Math.ceil(load.requestsPerSecond / policy.targetRequestsPerSecond)
    : 0;
  return Math.max(byConnections, byRate, load.waiting > 0 ? 1 : 0);
}

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

/**
 * One autoscaling decision (pure): the pool's size from the summed fresh load reports, within
 * minReplicas..maxReplicas, growing at most maxScaleUpStep and shrinking at most maxScaleDownStep
 * per stepInterval, shrinking only after the load stayed below the current size for
 * scaleDownAfter. A pool at zero with a waiting request wakes at once (no step interval: a crawler
 * is waiting). Under an External scaler the size is spec.replicas, kept within min..max, and a
 * pool at zero still wakes on a waiting request.
 */
export function planAutoscale(input: AutoscaleInput): AutoscaleDecision {
  const { policy: p, current, now } = input;
  const load = sumLoad(input.reports, now, input.staleAfterMs);
  const needed = membersNeeded(p, load);
  // The current size is still needed while the load asks for as many members (or more).
  const lastActiveTime = needed >= current ? now : (input.lastActiveTime ?? now);
  const decide = (replicas: number, reason: ScalingReason, message: string): AutoscaleDecision => ({
    replicas,
    reason,
    message,
    load,
    needed,
    lastActiveTime,
    ...(replicas !== current
      ? { lastScaleTime: now }
      : input.lastScaleTime !== undefined
        ? { lastScaleTime: input.lastScaleTime }
        : {}),
  });
  const loadText = `${count(load.activeConnections, 'connection')}, ${round(load.requestsPerSecond)} requests/s, ${load.waiting} waiting`;

  if (current === 0 && load.waiting > 0 && p.maxReplicas > 0) {
    const wake = p.scaler === 'External' ? Math.max(1, p.minReplicas) : clamp(needed, 1, p.maxReplicas);
    const replicas = Math.min(wake, Math.max(1, p.maxScaleUpStep));
    return decide(
      replicas,
      'WakingOnDemand',
      `${count(load.waiting, 'request')} waiting on a pool at zero: ${count(replicas, 'member')}`,
    );
  }
  // Outside min..max (the spec or an outside scaler moved them): back inside at once.
  if (current < p.minReplicas)
    return decide(
      p.minReplicas,
      'ScalingUp',
      `${count(current, 'member')}, below minReplicas ${p.minReplicas}`,
    );
  if (current > p.maxReplicas)
    return decide(
      p.maxReplicas,
      'ScalingDown',
      `${count(current, 'member')}, above maxReplicas ${p.maxReplicas}`,
    );
  if (p.scaler === 'External')
    return decide(current, 'External', `${count(current, 'member')}, as spec.replicas says (${loadText})`);

  const target = clamp(needed, p.minReplicas, p.maxReplicas);
  const stepDue = input.lastScaleTime === undefined || now - input.lastScaleTime >= p.stepIntervalMs;
  const stabilizing = decide(
    current,
    'Stabilizing',
    `the load needs ${target}; the next step comes ${p.stepIntervalMs} ms after the last`,
  );
  if (target > current) {
    if (!stepDue) return stabilizing;
    const replicas = Math.min(target, current + p.maxScaleUpStep);
    return decide(
      replicas,
      'ScalingUp',
      `${loadText}: ${replicas} of the ${count(target, 'member')} it needs`,
    );
  }
  if (target < current) {
    const idleFor = now - lastActiveTime;
    if (idleFor < p.scaleDownAfterMs)
      return decide(
        current,
        'WaitingToScaleDown',
        `${loadText} needs ${target}; members go after ${p.scaleDownAfterMs} ms below ${current} (${idleFor} ms so far)`,
      );
    if (!stepDue) return stabilizing;
    const replicas = Math.max(target, current - p.maxScaleDownStep);
    return decide(replicas, 'ScalingDown', `${loadText} for ${idleFor} ms: ${count(replicas, 'member')}`);
  }
  if (needed > p.maxReplicas)
    return decide(
      current,
      'AtMax',
      `${loadText} needs ${count(needed, 'member')}; maxReplicas is ${p.maxReplicas}`,
    );
  if (needed === 0 && current === p.minReplicas)
    return decide(current, 'Idle', `no load; ${count(current, 'member')} (minReplicas)`);
  return decide(current, 'Steady', `${loadText}: ${count(current, 'member')} carry it`);
}

const round = (n: number) => Math.round(n * 10) / 10;

/** `1 member`, `2 members`: the reasons are read by people on the status page and in `status`. */
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
