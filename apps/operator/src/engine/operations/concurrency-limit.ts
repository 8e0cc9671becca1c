import { abortReason } from '@egress-proxies/provider-utils';

/**
 * A counting semaphore: at most `limit` holders at once, the rest wait in arrival order. A
 * waiter whose signal aborts leaves the line without taking a slot.
 */
export class ConcurrencyLimit {
  #held = 0;
  readonly #waiting: Array<{ grant: () => void }> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`concurrency limit must be an integer of at least 1, got ${limit}`);
  }

  get held(): number {
    return this.#held;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** Resolves once a slot is held; the caller must `release()` it exactly once. */
  acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.#held < this.limit) {
      this.#held++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#held++;
          resolve();
        },
      };
      const onAbort = () => {
        const i = this.#waiting.indexOf(entry);
        if (i >= 0) this.#waiting.splice(i, 1);
        if (signal) reject(abortReason(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(entry);
    });
  }

  release(): void {
    if (this.#held === 0) throw new Error('release without acquire');
    this.#held--;
    this.#waiting.shift()?.grant();
  }
}
