import { describe, expect, it } from 'vitest';
import { EventRing, newestEvents } from './event-ring.js';
import type { StatusPageEvent } from './page-data.js';

const ev = (n: number, second = n): StatusPageEvent => ({
  time: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(),
  type: 'Normal',
  subject: `default/m${n}`,
  reason: 'Ready',
  message: `event ${n}`,
});

describe('event ring', () => {
  it('keeps the newest events, oldest first, once it has gone round', () => {
    const r = new EventRing(3);
    expect(r.list()).toEqual([]);
    r.push(ev(1));
    r.push(ev(2));
    expect(r.list().map((e) => e.message)).toEqual(['event 1', 'event 2']);
    for (let i = 3; i <= 7; i++) r.push(ev(i));
    expect(r.list().map((e) => e.message)).toEqual(['event 5', 'event 6', 'event 7']);
  });

  it('refuses a capacity that is not a whole number of 1 or more, naming it', () => {
    expect(() => new EventRing(0)).toThrow(/event ring capacity 0: expected a whole number of 1 or more/);
    expect(() => new EventRing(2.5)).toThrow(/capacity 2\.5/);
  });

  it('merges two lists by time and keeps the newest n', () => {
    const merged = newestEvents([ev(1), ev(4), ev(6)], [ev(2), ev(5)], 3);
    expect(merged.map((e) => e.message)).toEqual(['event 4', 'event 5', 'event 6']);
    expect(newestEvents([ev(1)], [], 5).map((e) => e.message)).toEqual(['event 1']);
  });
});
