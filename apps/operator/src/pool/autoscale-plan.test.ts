import { describe, expect, it } from 'vitest';
import { validateProxyPoolSpec } from '../api/proxy-pool.js';
import {
  type AutoscaleInput,
  type AutoscalePolicy,
  autoscalePolicy,
  busyByMember,
  type LoadReport,
  planAutoscale,
  sumLoad,
} from './autoscale-plan.js';
import { type PlanMember, removalOrder } from './plan-pool.js';

const NOW = 10_000_000;
const policy = (over: Partial<AutoscalePolicy> = {}): AutoscalePolicy => ({
  scaler: 'Builtin',
  minReplicas: 0,
  maxReplicas: 10,
  targetActiveConnections: 10,
  scaleDownAfterMs: 60_000,
  maxScaleUpStep: 100,
  maxScaleDownStep: 100,
  stepIntervalMs: 0,
  ...over,
});
const report = (over: Partial<LoadReport> = {}): LoadReport => ({
  source: 'gw-a',
  at: NOW,
  activeConnections: 0,
  requestsPerSecond: 0,
  waiting: 0,
  ...over,
});
const plan = (over: Partial<Omit<AutoscaleInput, 'policy'>> & { policy?: Partial<AutoscalePolicy> } = {}) =>
  planAutoscale({
    current: 2,
    reports: [],
    staleAfterMs: 30_000,
    now: NOW,
    ...over,
    policy: policy(over.policy),
  });

describe('sumLoad', () => {
  it('sums the replicas, ignores stale reports and keeps only the newest per replica', () => {
    const load = sumLoad(
      [
        report({ source: 'a', activeConnections: 5, requestsPerSecond: 2 }),
        report({ source: 'b', activeConnections: 7, waiting: 1 }),
        report({ source: 'b', at: NOW - 1000, activeConnections: 100 }),
        report({ source: 'c', at: NOW - 30_001, activeConnections: 1000 }),
      ],
      NOW,
      30_000,
    );
    expect(load).toEqual({ activeConnections: 12, requestsPerSecond: 2, waiting: 1, reports: 2 });
  });
});

describe('busyByMember', () => {
  it("sums each member's connections and sessions over the replicas' fresh reports, the newest per replica", () => {
    const busy = busyByMember(
      [
        report({ source: 'a', busy: { m1: 2, m2: 1 } }),
        report({ source: 'b', busy: { m1: 3 } }),
        // Superseded by b's newer report, and a replica gone quiet: neither counts.
        report({ source: 'b', at: NOW - 1000, busy: { m3: 50 } }),
        report({ source: 'c', at: NOW - 30_001, busy: { m2: 1000 } }),
      ],
      NOW,
      30_000,
    );
    expect(Object.fromEntries(busy)).toEqual({ m1: 5, m2: 1 });
  });
});

describe('planAutoscale', () => {
  it('sizes for active connections per member', () => {
    const d = plan({ reports: [report({ activeConnections: 45 })] });
    expect(d).toMatchObject({ replicas: 5, reason: 'ScalingUp', needed: 5 });
  });

  it('sizes for requests per second, taking the larger of the two targets', () => {
    const d = plan({
      policy: { targetRequestsPerSecond: 4 },
      reports: [report({ activeConnections: 15, requestsPerSecond: 25 })],
    });
    expect(d).toMatchObject({ replicas: 7, reason: 'ScalingUp' });
  });

  it('leaves out a stale report', () => {
    const d = plan({ current: 1, reports: [report({ at: NOW - 31_000, activeConnections: 90 })] });
    expect(d.replicas).toBe(1);
    expect(d.load.reports).toBe(0);
  });

  it('stays within maxReplicas and says so', () => {
    expect(plan({ current: 5, reports: [report({ activeConnections: 500 })] })).toMatchObject({
      replicas: 10,
      reason: 'ScalingUp',
    });
    expect(plan({ current: 10, reports: [report({ activeConnections: 500 })] })).toMatchObject({
      replicas: 10,
      reason: 'AtMax',
    });
  });

  it('keeps minReplicas with no load, and brings a size outside min..max back at once', () => {
    expect(plan({ current: 3, policy: { minReplicas: 3 } })).toMatchObject({ replicas: 3, reason: 'Idle' });
    // Whatever the step limit: minReplicas is a floor, not a goal.
    expect(plan({ current: 1, policy: { minReplicas: 3, maxScaleUpStep: 1 } })).toMatchObject({
      replicas: 3,
      reason: 'ScalingUp',
    });
    expect(plan({ current: 12, lastActiveTime: NOW })).toMatchObject({ replicas: 10, reason: 'ScalingDown' });
  });

  it('grows at most maxScaleUpStep per step', () => {
    const d = plan({ policy: { maxScaleUpStep: 2 }, reports: [report({ activeConnections: 90 })] });
    expect(d).toMatchObject({ replicas: 4, reason: 'ScalingUp', lastScaleTime: NOW });
  });

  it('waits stepInterval between steps', () => {
    const p = { stepIntervalMs: 15_000 };
    const busy = [report({ activeConnections: 90 })];
    expect(plan({ policy: p, reports: busy, lastScaleTime: NOW - 5_000 })).toMatchObject({
      replicas: 2,
      reason: 'Stabilizing',
      lastScaleTime: NOW - 5_000,
    });
    expect(plan({ policy: p, reports: busy, lastScaleTime: NOW - 15_000 }).replicas).toBe(9);
    const idle = { current: 4, lastActiveTime: NOW - 60_000 };
    expect(plan({ ...idle, policy: p, lastScaleTime: NOW - 5_000 })).toMatchObject({
      replicas: 4,
      reason: 'Stabilizing',
    });
  });

  it('shrinks only after the load stayed below the current size for scaleDownAfter', () => {
    const idleSince = NOW - 59_000;
    const waiting = plan({ current: 4, lastActiveTime: idleSince });
    expect(waiting).toMatchObject({ replicas: 4, reason: 'WaitingToScaleDown', lastActiveTime: idleSince });
    const after = plan({ current: 4, lastActiveTime: NOW - 60_000 });
    expect(after).toMatchObject({ replicas: 0, reason: 'ScalingDown' });
  });

  it('restarts the idle clock whenever the load needs the current size', () => {
    const d = plan({
      current: 2,
      lastActiveTime: NOW - 120_000,
      reports: [report({ activeConnections: 20 })],
    });
    expect(d).toMatchObject({ replicas: 2, reason: 'Steady', lastActiveTime: NOW });
  });

  it('shrinks at most maxScaleDownStep per step', () => {
    const d = plan({ current: 6, policy: { maxScaleDownStep: 1 }, lastActiveTime: NOW - 60_000 });
    expect(d).toMatchObject({ replicas: 5, reason: 'ScalingDown' });
  });

  it('wakes a pool at zero on a waiting request at once, whatever the step interval', () => {
    const d = plan({
      current: 0,
      policy: { stepIntervalMs: 60_000 },
      lastScaleTime: NOW - 1,
      reports: [report({ waiting: 3 })],
    });
    expect(d).toMatchObject({ replicas: 1, reason: 'WakingOnDemand' });
  });

  it('under an External scaler follows spec.replicas within min..max and still wakes from zero', () => {
    const ext = { scaler: 'External' as const };
    expect(plan({ current: 4, policy: ext, reports: [report({ activeConnections: 500 })] })).toMatchObject({
      replicas: 4,
      reason: 'External',
    });
    expect(plan({ current: 0, policy: ext, reports: [report({ waiting: 1 })] })).toMatchObject({
      replicas: 1,
      reason: 'WakingOnDemand',
    });
    expect(plan({ current: 11, policy: ext }).replicas).toBe(10);
  });

  it('reads its policy from a validated spec', () => {
    const spec = validateProxyPoolSpec({
      replicas: 0,
      template: { provider: 'local' },
      autoscale: { minReplicas: 0, maxReplicas: 3, targetRequestsPerSecond: 5, scaleDownAfter: '1m30s' },
    });
    expect(autoscalePolicy(spec.autoscale!)).toEqual({
      scaler: 'Builtin',
      minReplicas: 0,
      maxReplicas: 3,
      targetRequestsPerSecond: 5,
      scaleDownAfterMs: 90_000,
      maxScaleUpStep: 10,
      maxScaleDownStep: 1,
      stepIntervalMs: 15_000,
    });
  });
});

describe('removalOrder with the gateway’s usage', () => {
  const m = (name: string, createdAt: number, busy?: number, ready = true): PlanMember => ({
    name,
    createdAt,
    ready,
    templateHash: 'h',
    ...(busy !== undefined ? { busy } : {}),
  });

  it('takes members with no connections and no sessions first, then the least busy', () => {
    const order = removalOrder([
      m('old-busy', 1, 5),
      m('young-idle', 3, 0),
      m('mid-light', 2, 1),
      m('down', 4, 9, false),
    ]);
    expect(order.map((x) => x.name)).toEqual(['down', 'young-idle', 'mid-light', 'old-busy']);
  });
});
