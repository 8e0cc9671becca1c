import { type Clock, systemClock } from './clock.js';
import { type BackoffTier, RateLimiter, type RateLimiterOptions } from './rate-limiter.js';

export interface WorkQueueOptions {
  clock?: Clock;
  rateLimiter?: RateLimiterOptions;
  /** Called for every add that queues a key not already waiting (client-go's `adds`). */
  onAdd?: () => void;
  /** Called for every `addRateLimited` (client-go's `retries`). */
  onRetry?: () => void;
}

/**
 * A keyed work queue in the shape controllers need:
 * - a key queued twice is handed out once (dedup while queued);
 * - a key being processed is never handed to a second worker; added meanwhile, it is queued
 *   once more when `done` is called;
 * - `addAfter` delays an add (the earliest pending delay per key wins), `addRateLimited` delays
 *   by the key's backoff, `forget` resets that backoff;
 * - after `shutDown` nothing new is accepted, `get` returns undefined once the queue is empty,
 *   and `drain` resolves when the keys in flight are done.
 */
export class WorkQueue<K> {
  readonly #clock: Clock;
  readonly #limiter: RateLimiter<K>;
  readonly #onAdd: () => void;
  readonly #onRetry: () => void;
  readonly #queue: K[] = [];
  /** Keys waiting to be processed (queued, or to be re-queued when their processing ends). */
  readonly #dirty = new Set<K>();
  readonly #processing = new Set<K>();
  readonly #delayed = new Map<K, { at: number; handle: unknown }>();
  readonly #waiters: ((key: K | undefined) => void)[] = [];
  #drainWaiters: (() => void)[] = [];
  #head = 0;
  #shuttingDown = false;

  constructor(options: WorkQueueOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#limiter = new RateLimiter<K>(options.rateLimiter);
    this.#onAdd = options.onAdd ?? (() => {});
    this.#onRetry = options.onRetry ?? (() => {});
  }

  /** Queues `key` now (no-op while it is already waiting, or after shutdown). */
  add(key: K): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#onAdd();
    this.#dirty.add(key);
    if (this.#processing.has(key)) return;
    this.#push(key);
  }

  /** Queues `key` after `ms`; an earlier pending delay for the same key is kept. */
  addAfter(key: K, ms: number): void {
    if (this.#shuttingDown) return;
    if (!(ms > 0)) {
      this.add(key);
      return;
    }
    const at = this.#clock.now() + ms;
    const pending = this.#delayed.get(key);
    if (pending) {
      if (pending.at <= at) return;
      this.#clock.clearTimeout(pending.handle);
    }
    const handle = this.#clock.setTimeout(() => {
      this.#delayed.delete(key);
      this.add(key);
    }, ms);
    this.#delayed.set(key, { at, handle });
  }

  /** Queues `key` after its backoff in `tier`; returns the delay chosen. */
  addRateLimited(key: K, tier: BackoffTier = 'transient'): number {
    const ms = this.#limiter.when(key, tier);
    if (!this.#shuttingDown) this.#onRetry();
    this.addAfter(key, ms);
    return ms;
  }

  /** Resets `key`'s backoff (after a success). */
  forget(key: K): void {
    this.#limiter.forget(key);
  }

  /** Failures counted for `key` since it was last forgotten. */
  numRequeues(key: K): number {
    return this.#limiter.failures(key);
  }

  /**
   * The next key to process, waiting for one; undefined after shutdown once the queue is empty,
   * or when `signal` aborts. The caller must call `done(key)` when finished with it.
   */
  get(signal?: AbortSignal): Promise<K | undefined> {
    const key = this.#take();
    if (key !== undefined || this.#shuttingDown || signal?.aborted) return Promise.resolve(key);
    return new Promise((resolve) => {
      const waiter = (k: K | undefined) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(k);
      };
      const onAbort = () => {
        const i = this.#waiters.indexOf(waiter);
        if (i >= 0) this.#waiters.splice(i, 1);
        resolve(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /** Marks `key` finished; queues it again if it was added while being processed. */
  done(key: K): void {
    if (!this.#processing.delete(key)) return;
    if (this.#dirty.has(key)) {
      if (this.#shuttingDown) this.#dirty.delete(key);
      else this.#push(key);
    }
    if (this.#processing.size === 0 && this.#drainWaiters.length > 0) {
      const ws = this.#drainWaiters;
      this.#drainWaiters = [];
      for (const w of ws) w();
    }
  }

  /** Stops accepting keys, drops delayed adds and wakes idle workers. Queued keys are still handed out. */
  shutDown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    for (const { handle } of this.#delayed.values()) this.#clock.clearTimeout(handle);
    this.#delayed.clear();
    if (this.length === 0) for (const w of this.#waiters.splice(0)) w(undefined);
  }

  /** Resolves once no key is being processed (call after `shutDown` to wait for workers). */
  drain(): Promise<void> {
    if (this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }
  /** Keys queued and not yet handed out. */
  get length(): number {
    return this.#queue.length - this.#head;
  }
  /** Keys handed out and not yet done. */
  get inFlight(): number {
    return this.#processing.size;
  }
  /** Keys with a pending delayed add. */
  get delayed(): number {
    return this.#delayed.size;
  }

  #push(key: K): void {
    const w = this.#waiters.shift();
    if (w) {
      this.#dirty.delete(key);
      this.#processing.add(key);
      w(key);
      return;
    }
    this.#queue.push(key);
  }

  #take(): K | undefined {
    if (this.#head >= this.#queue.length) return undefined;
    const key = this.#queue[this.#head] as K;
    this.#head += 1;
    // Compact now and then so a long-lived queue does not grow without bound.
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
    this.#dirty.delete(key);
    this.#processing.add(key);
    if (this.#shuttingDown && this.length === 0) for (const w of this.#waiters.splice(0)) w(undefined);
    return key;
  }
}
