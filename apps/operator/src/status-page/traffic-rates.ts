/**
 * Requests per second per member, from counters read at each snapshot: the rate holds over a
 * window of at least `windowMs` and moves only when a window closes, so a page polled twice in a
 * millisecond neither divides by nothing nor jitters.
 */
export class TrafficRates {
  readonly #samples = new Map<string, { at: number; count: number; rate: number }>();

  constructor(readonly windowMs = 1000) {}

  /** The rate of `key` whose counter reads `count` at `now` (0 until its first window closes). */
  rate(key: string, count: number, now: number): number {
    const s = this.#samples.get(key);
    if (!s || count < s.count) {
      // New, or its counter started again (a new gateway): the window starts here.
      this.#samples.set(key, { at: now, count, rate: 0 });
      return 0;
    }
    if (now - s.at >= this.windowMs) {
      // One decimal: the page shows it, and a rate that moves in the noise would re-send every row.
      s.rate = Math.round(((count - s.count) * 10_000) / (now - s.at)) / 10;
      s.at = now;
      s.count = count;
    }
    return s.rate;
  }

  /** Forgets keys not in `live` (members that left), so rotation does not grow the map. */
  retain(live: ReadonlySet<string>): void {
    for (const k of this.#samples.keys()) if (!live.has(k)) this.#samples.delete(k);
  }
}
