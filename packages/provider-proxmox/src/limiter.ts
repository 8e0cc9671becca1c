import { abortReason } from '@egress-proxies/provider-utils';

/**
 * A counting semaphore per key (node): at most `limit` holders at once, FIFO. Parallel clones on
 * one storage serialise on PVE's storage lock and the losers time out, so clones are bounded here
 * instead of being left to fail.
 */
export class KeyedLimiter {
  readonly #active = new Map<string, number>();
  readonly #waiting = new Map<string, (() => void)[]>();
  #peak = new Map<string, number>();
  constructor(readonly limit: number) {}

  /** The most holders seen at once per key, for tests and logs. */
  peak(key: string): number {
    return this.#peak.get(key) ?? 0;
  }

  async run<T>(key: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(key, signal);
    try {
      return await fn();
    } finally {
      this.#release(key);
    }
  }

  #acquire(key: string, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const n = this.#active.get(key) ?? 0;
    if (n < this.limit) {
      this.#take(key);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const q = this.#waiting.get(key) ?? [];
      this.#waiting.set(key, q);
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        this.#take(key);
        resolve();
      };
      const onAbort = () => {
        const i = q.indexOf(grant);
        if (i >= 0) q.splice(i, 1);
        reject(abortReason(signal as AbortSignal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      q.push(grant);
    });
  }

  #take(key: string): void {
    const n = (this.#active.get(key) ?? 0) + 1;
    this.#active.set(key, n);
    if (n > this.peak(key)) this.#peak.set(key, n);
  }

  #release(key: string): void {
    const n = (this.#active.get(key) ?? 1) - 1;
    if (n <= 0) this.#active.delete(key);
    else this.#active.set(key, n);
    const next = this.#waiting.get(key)?.shift();
    if (this.#waiting.get(key)?.length === 0) this.#waiting.delete(key);
    next?.();
  }
}
