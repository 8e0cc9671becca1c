/** Time as the queue, the reconciler and the loops see it; tests pass a `FakeClock`. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    // A pending requeue must not keep a process alive that is otherwise done.
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

interface FakeTimer {
  id: number;
  at: number;
  fn: () => void;
}

/** A manual clock: timers fire only in `advance`, in time order. */
export class FakeClock implements Clock {
  #now: number;
  #timers: FakeTimer[] = [];
  #nextId = 1;

  constructor(start = 0) {
    this.#now = start;
  }
  now(): number {
    return this.#now;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const t = { id: this.#nextId++, at: this.#now + Math.max(0, ms), fn };
    this.#timers.push(t);
    return t.id;
  }
  clearTimeout(handle: unknown): void {
    this.#timers = this.#timers.filter((t) => t.id !== handle);
  }
  /** Pending timers. */
  get pending(): number {
    return this.#timers.length;
  }
  /** Moves time forward by `ms`, firing every timer due on the way in order. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      this.#timers.sort((a, b) => a.at - b.at || a.id - b.id);
      const next = this.#timers[0];
      if (!next || next.at > end) break;
      this.#timers.shift();
      this.#now = next.at;
      next.fn();
    }
    this.#now = end;
  }
}
