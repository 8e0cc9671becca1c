interface Sample {
  at: number;
  count: number;
  rate: number;
}

/**
 * Requests per second per member, from counters read at each snapshot: the rate holds over a
 * window of at least `windowMs` and moves only when a window closes, so a page polled twice in a
 * millisecond neither divides by nothing nor jitters. Kept by pool, then member: no key is built
 * per member and update.
 */
export class TrafficRates {
  readonly #pools = new Map<string, Map<string, Sample>>();

  constructor(readonly windowMs = 1000) {}

  /** The rate of `member` of `pool` whose counter reads `count` at `now` (0 until its first window closes). */
  rate(pool: string, member: string, count: number, now: number): number {
    let samples = this.#pools.get(pool);
    if (!samples) {
      samples = new Map();
      this.#pools.set(pool, samples);
    }
    const s = samples.get(member);
    if (!s || count < s.count) {
      // New, or its counter started again (a new gateway): the window starts here.
      samples.set(member, { at: now, count, rate: 0 });
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

  /** Forgets pools and members not in `live` (members that left), so rotation does not grow the maps. */
  retain(live: ReadonlyMap<string, ReadonlySet<string>>): void {
    for (const [pool, samples] of this.#pools) {
      const names = live.get(pool);
      if (!names) this.#pools.delete(pool);
      else for (const m of samples.keys()) if (!names.has(m)) samples.delete(m);
    }
  }
}
