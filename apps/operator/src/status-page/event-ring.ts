import type { StatusPageEvent } from './page-data.js';

/**
 * The last `capacity` events, oldest first: a fixed array written round, so a busy fleet's
 * events cost the page nothing beyond the newest `capacity`.
 */
export class EventRing {
  readonly #items: (StatusPageEvent | undefined)[];
  #next = 0;
  #size = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`event ring capacity ${capacity}: expected a whole number of 1 or more`);
    this.#items = new Array(capacity);
  }

  push(e: StatusPageEvent): void {
    this.#items[this.#next] = e;
    this.#next = (this.#next + 1) % this.capacity;
    if (this.#size < this.capacity) this.#size++;
  }

  /** Oldest first. */
  list(): StatusPageEvent[] {
    const start = (this.#next - this.#size + this.capacity) % this.capacity;
    const out: StatusPageEvent[] = [];
    for (let i = 0; i < this.#size; i++)
      out.push(this.#items[(start + i) % this.capacity] as StatusPageEvent);
    return out;
  }
}

/** The newest `n` of two time-ordered lists, merged by time, oldest first. */
export function newestEvents(
  a: readonly StatusPageEvent[],
  b: readonly StatusPageEvent[],
  n: number,
): StatusPageEvent[] {
  const all = [...a, ...b];
  // ISO times of one clock sort as strings; the sort is stable, so equal times keep their order.
  all.sort((x, y) => (x.time < y.time ? -1 : x.time > y.time ? 1 : 0));
  return all.slice(Math.max(0, all.length - n));
}
