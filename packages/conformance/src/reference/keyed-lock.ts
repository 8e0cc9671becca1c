import { raceAbort } from '@egress-proxies/provider-utils';

/**
 * Serialises work per key (an instance name), so two creates or deletes of one instance never
 * interleave; different keys run in parallel. Waiting ends early when the signal aborts.
 */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release: () => void = () => {};
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.#tails.set(key, tail);
    try {
      await raceAbort(previous, signal);
      return await fn();
    } finally {
      release();
      // Only the last holder forgets the key: one with calls queued behind it leaves their tail in place (OPS-20).
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  /** Keys with work queued or running (for tests: nothing is retained for idle keys). */
  // Stryker disable next-line all: test-only introspection, never read by the provider
  get size(): number {
    return this.#tails.size;
  }
}
