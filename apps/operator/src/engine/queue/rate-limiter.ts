/** Backoff tiers: Transient errors retry soon, QuotaExceeded ones slowly. */
export type BackoffTier = 'transient' | 'quota';

export interface BackoffPolicy {
  /** The first delay. */
  baseMs: number;
  /** The ceiling. */
  maxMs: number;
}

export interface RateLimiterOptions {
  tiers?: Partial<Record<BackoffTier, BackoffPolicy>>;
  /** Extra delay as a fraction of the delay, drawn uniformly from [0, jitter); 0.2 by default. */
  jitter?: number;
  /** A number in [0, 1); Math.random by default. */
  random?: () => number;
}

export const DEFAULT_TIERS: Record<BackoffTier, BackoffPolicy> = {
  transient: { baseMs: 1_000, maxMs: 5 * 60_000 },
  quota: { baseMs: 60_000, maxMs: 30 * 60_000 },
};

/**
 * Per-key exponential backoff with jitter: the n-th failure of a key waits
 * min(max, base * 2^n) plus up to `jitter` of that, so a burst of failures spreads out instead of
 * retrying in lockstep. Each tier counts its own failures; `forget` clears a key after a success.
 */
export class RateLimiter<K> {
  readonly #tiers: Record<BackoffTier, BackoffPolicy>;
  readonly #jitter: number;
  readonly #random: () => number;
  readonly #failures = new Map<K, Partial<Record<BackoffTier, number>>>();

  constructor(options: RateLimiterOptions = {}) {
    this.#tiers = { ...DEFAULT_TIERS, ...options.tiers };
    for (const [tier, p] of Object.entries(this.#tiers)) {
      if (!(p.baseMs > 0) || !(p.maxMs >= p.baseMs)) {
        throw new RangeError(
          `backoff tier ${tier}: need 0 < baseMs <= maxMs, got baseMs=${p.baseMs} maxMs=${p.maxMs}`,
        );
      }
    }
    this.#jitter = options.jitter ?? 0.2;
    if (!(this.#jitter >= 0 && this.#jitter <= 1)) {
      throw new RangeError(`jitter must be within [0, 1], got ${this.#jitter}`);
    }
    this.#random = options.random ?? Math.random;
  }

  /** The delay before the next retry of `key`, counting this failure. */
  when(key: K, tier: BackoffTier = 'transient'): number {
    const counts = this.#failures.get(key) ?? {};
    const n = counts[tier] ?? 0;
    counts[tier] = n + 1;
    this.#failures.set(key, counts);
    const p = this.#tiers[tier];
    // 2^n overflows to Infinity long before it matters; min() caps it either way.
    const delay = Math.min(p.maxMs, p.baseMs * 2 ** n);
    return Math.round(delay * (1 + this.#jitter * this.#random()));
  }

  /** Failures counted for `key` since the last `forget`, over all tiers. */
  failures(key: K): number {
    const c = this.#failures.get(key);
    return c ? (c.transient ?? 0) + (c.quota ?? 0) : 0;
  }

  forget(key: K): void {
    this.#failures.delete(key);
  }

  /** Keys with a failure count (for leak checks). */
  get size(): number {
    return this.#failures.size;
  }
}
