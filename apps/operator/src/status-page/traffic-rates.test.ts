import { describe, expect, it } from 'vitest';
import { TrafficRates } from './traffic-rates.js';

describe('traffic rates', () => {
  it('is the count over a closed window, held until the next window closes', () => {
    const r = new TrafficRates(1000);
    expect(r.rate('p', 'm', 10, 0)).toBe(0);
    // Within the window: no division by a tiny interval, the last rate holds.
    expect(r.rate('p', 'm', 15, 10)).toBe(0);
    expect(r.rate('p', 'm', 30, 2000)).toBe(10);
    expect(r.rate('p', 'm', 31, 2500)).toBe(10);
    expect(r.rate('p', 'm', 33, 5000)).toBe(1);
    // Another pool's member of the same name is another member.
    expect(r.rate('q', 'm', 500, 5000)).toBe(0);
  });

  it('starts again when a counter goes back (a new gateway), and forgets members that left', () => {
    const r = new TrafficRates(1000);
    r.rate('p', 'a', 100, 0);
    expect(r.rate('p', 'a', 200, 1000)).toBe(100);
    expect(r.rate('p', 'a', 5, 2000)).toBe(0);
    r.rate('p', 'b', 50, 0);
    r.rate('q', 'c', 50, 0);
    r.retain(new Map([['p', new Set(['a'])]]));
    // b and c start over: their first reading gives no rate.
    expect(r.rate('p', 'b', 60, 3000)).toBe(0);
    expect(r.rate('q', 'c', 60, 3000)).toBe(0);
    expect(r.rate('p', 'a', 1005, 3000)).toBe(1000);
  });
});
