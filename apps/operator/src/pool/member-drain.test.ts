import { describe, expect, it } from 'vitest';
import type { LoadReport } from './autoscale-plan.js';
import { formatDrainMark, parseDrainMark } from './drain-mark.js';
import {
  DRAIN_SEEN_MS,
  type DrainingMember,
  drainingLoad,
  drainsEnded,
  reinstated,
  splitDeletions,
} from './member-drain.js';
import { type PlanMember, planPool } from './plan-pool.js';

const openOf =
  (counts: Record<string, number>) =>
  (name: string): number =>
    counts[name] ?? 0;

describe('splitDeletions', () => {
  it('deletes members with nothing open now and drains the ones still carrying connections', () => {
    const split = splitDeletions(
      [
        { name: 'idle', reason: 'scale-down' },
        { name: 'tunnelling', reason: 'scale-down' },
        { name: 'old', reason: 'replaced' },
      ],
      openOf({ tunnelling: 2, old: 1 }),
      1_000,
    );
    expect(split.deleteNow).toEqual([{ name: 'idle', reason: 'scale-down' }]);
    expect(split.drain).toEqual([
      { name: 'tunnelling', since: 1_000, reason: 'scale-down' },
      { name: 'old', since: 1_000, reason: 'replaced' },
    ]);
  });
});

describe('drainsEnded', () => {
  const draining: DrainingMember[] = [
    { name: 'done', since: 0, reason: 'scale-down' },
    { name: 'busy', since: 0, reason: 'scale-down' },
    { name: 'late', since: -60_000, reason: 'replaced' },
  ];

  it('ends a drain when the last connection closes, and at the timeout with connections still open', () => {
    expect(drainsEnded(draining, openOf({ busy: 1, late: 3 }), 60_000, 120_000)).toEqual([
      { name: 'done', why: 'drained' },
      { name: 'late', why: 'drain-timeout' },
    ]);
  });

  it('keeps every member with open connections until the timeout', () => {
    expect(drainsEnded(draining, openOf({ done: 1, busy: 1, late: 1 }), 59_999, 120_000)).toEqual([]);
  });
});

describe('reinstated', () => {
  const draining: DrainingMember[] = [
    { name: 'first', since: 1, reason: 'scale-down' },
    { name: 'second', since: 2, reason: 'scale-down' },
    { name: 'outdated', since: 3, reason: 'replaced' },
  ];

  it('takes back members drained for a scale-down, the latest chosen first, never replaced ones', () => {
    expect(reinstated(draining, 1)).toEqual(['second']);
    expect(reinstated(draining, 5)).toEqual(['second', 'first']);
    expect(reinstated(draining, 0)).toEqual([]);
  });
});

describe('a scale-down as planned and split', () => {
  const m = (name: string, createdAt: number, busy?: number): PlanMember => ({
    name,
    createdAt,
    ready: true,
    templateHash: 'h',
    ...(busy !== undefined ? { busy } : {}),
  });
  const scaleTo = (replicas: number, members: PlanMember[], open: Record<string, number>) =>
    splitDeletions(
      planPool({
        replicas,
        templateHash: 'h',
        targets: [{ provider: 'p', weight: 1 }],
        maxSurge: 1,
        minReady: 0,
        recycleBanned: false,
        members,
        now: 10,
      }).delete,
      openOf(open),
      10,
    );

  it('takes the member with no sessions and no tunnels, though it is the youngest', () => {
    // The oldest member carries a tunnel: by age alone it would go first.
    const split = scaleTo(1, [m('oldest', 1, 1), m('youngest', 2)], { oldest: 1 });
    expect(split.deleteNow.map((d) => d.name)).toEqual(['youngest']);
    expect(split.drain).toEqual([]);
  });

  it('drains the member carrying a tunnel when every member goes', () => {
    const split = scaleTo(0, [m('a', 1, 1), m('b', 2, 0)], { a: 1 });
    expect(split.deleteNow.map((d) => d.name)).toEqual(['b']);
    expect(split.drain.map((d) => d.name)).toEqual(['a']);
  });

  it('takes a member with only sessions after the idle ones, and deletes it at once (nothing to drain)', () => {
    const split = scaleTo(1, [m('sessions', 1, 2), m('idle', 2, 0), m('tunnel', 3, 3)], { tunnel: 1 });
    expect(split.deleteNow.map((d) => d.name)).toEqual(['idle', 'sessions']);
    expect(split.drain).toEqual([]);
  });
});

describe("drainingLoad (the cluster: counts from the gateway replicas' reports)", () => {
  const since = 100_000;
  const draining: DrainingMember[] = [{ name: 'a', since, reason: 'scale-down' }];
  const seen = since + DRAIN_SEEN_MS;
  const report = (source: string, at: number, busy?: Record<string, number>): LoadReport => ({
    source,
    at,
    activeConnections: 0,
    requestsPerSecond: 0,
    waiting: 0,
    ...(busy ? { busy } : {}),
  });

  it('sums the fresh replicas made after they saw the drain', () => {
    const open = drainingLoad(
      draining,
      [report('r1', seen, { a: 1 }), report('r2', seen + 1, { a: 2, b: 5 })],
      seen + 10,
      30_000,
    );
    expect(open('a')).toBe(3);
    // Not draining: nothing to wait for.
    expect(open('b')).toBe(0);
  });

  it('is idle only once every fresh replica has reported since it saw the drain', () => {
    // r2 last reported before the mark could reach it: it may still route new work to `a`.
    const early = [report('r1', seen, {}), report('r2', since + 500, {})];
    expect(drainingLoad(draining, early, seen + 10, 30_000)('a')).toBeGreaterThan(0);
    const later = [...early, report('r2', seen + 5, {})];
    expect(drainingLoad(draining, later, seen + 10, 30_000)('a')).toBe(0);
  });

  it('leaves stale replicas out, and counts a member idle when no replica reports at all', () => {
    const stale = [report('gone', since + 10_000, { a: 4 })];
    expect(drainingLoad(draining, stale, since + 60_000, 30_000)('a')).toBe(0);
    expect(drainingLoad(draining, [], since, 30_000)('a')).toBe(0);
  });
});

describe('the draining mark', () => {
  it('reads back what it writes, and nothing from a value that is not a mark', () => {
    const mark = { since: Date.parse('2026-12-06T10:00:00Z'), reason: 'replaced' as const };
    expect(formatDrainMark(mark)).toBe('2026-12-06T10:00:00.000Z replaced');
    expect(parseDrainMark(formatDrainMark(mark))).toEqual(mark);
    expect(parseDrainMark('2026-12-06T10:00:00Z')).toEqual({ since: mark.since, reason: 'scale-down' });
    expect(parseDrainMark('yes')).toBeUndefined();
    expect(parseDrainMark(undefined)).toBeUndefined();
  });
});
