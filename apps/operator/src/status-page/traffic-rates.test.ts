import { describe, expect, it } from 'vitest';
import { TrafficRates } from './traffic-rates.js';

describe('traffic rates', () => {
  it('is the count over a closed window, held until the next window closes', () => {
    const r = new TrafficRates(1000);
    expect(r.rate('m', 10, 0)).toBe(0);
    // Within the window: no division by a tiny interval, the last rate holds.
    expect(r.rate('m', 15, 10)).toBe(0);
    expect(r.rate('m', 30, 2000)).toBe(10);
    expect(r.rate('m', 31, 2500)).toBe(10);
    expect(r.rate('m', 33, 5000)).toBe(1);
  });

  it('starts again when a counter goes back (a new gateway), and forgets members that left', () => {
    const r = new TrafficRates(1000);
    r.rate('a', 100, 0);
    expect(r.rate('a', 200, 1000)).toBe(100);
    expect(r.rate('a', 5, 2000)).toBe(0);
    r.rate('b', 50, 0);
    r.retain(new Set(['a']));
    // b starts over: its first reading gives no rate.
    expect(r.rate('b', 60, 3000)).toBe(0);
  });
});
