import type { MemberTable } from './member-table.js';

/** The load one gateway sees on its pool, for the autoscaler. */
export interface GatewayLoad {
  /** When it was taken (ms since the epoch). */
  at: number;
  /** Connections open through members now (tunnels, plain requests in flight). */
  activeConnections: number;
  /** New requests and tunnels per second over the last RATE_WINDOW_S seconds. */
  requestsPerSecond: number;
  /** Requests held now because the pool has no Ready member. */
  waiting: number;
}

export interface PoolDemandOptions {
  /**
   * How long a request is held while the pool has no eligible member (it wakes from zero); 0 or
   * absent: no hold, the request gets the data path's 503 at once, as before autoscale.
   */
  wakeTimeoutMs?: number;
  now?: () => number;
  /** A request started waiting: the pool should wake (called on each new waiter). */
  onWake?: () => void;
}

/** What a held request is answered: go to a member, or 503 with Retry-After, or nothing (its client left). */
export interface HeldRequest {
  /** The client's socket: its close while held drops the request, blaming no member. */
  socket: { once(event: 'close', f: () => void): unknown; off(event: 'close', f: () => void): unknown };
  /** A member became eligible: route as usual. */
  go(): void;
  /** The wake timed out (or the gateway drains): answer 503 with `Retry-After: retryAfterS`. */
  giveUp(retryAfterS: number, why: string): void;
}

/** The seconds of arrivals requestsPerSecond averages over. */
export const RATE_WINDOW_S = 10;

interface Waiter {
  held: HeldRequest;
  timer: NodeJS.Timeout;
  onClose: () => void;
}

/**
 * The pool's demand as this gateway sees it (arrivals per second, open connections, requests
 * waiting) and wake on demand: with no eligible member, a new request is held up to wakeTimeout
 * while the pool scales up from zero, released to the first member that becomes eligible, else
 * answered 503 with Retry-After. Kept off the data path's modules: the server asks `mustWait()`
 * before routing, and calls `arrived()` once per request or tunnel.
 */
export class PoolDemand {
  readonly #members: MemberTable;
  readonly #now: () => number;
  readonly #onWake: (() => void) | undefined;
  #wakeTimeoutMs: number;
  readonly #waiters = new Set<Waiter>();
  /** Arrivals per second, a ring of RATE_WINDOW_S buckets keyed by the second they count. */
  readonly #buckets = new Float64Array(RATE_WINDOW_S);
  readonly #bucketSecond = new Float64Array(RATE_WINDOW_S).fill(-1);
  readonly #stopListening: () => void;
  #closed = false;

  constructor(members: MemberTable, opts: PoolDemandOptions = {}) {
    this.#members = members;
    this.#now = opts.now ?? Date.now;
    this.#onWake = opts.onWake;
    this.#wakeTimeoutMs = opts.wakeTimeoutMs ?? 0;
    this.#stopListening = members.onEligible(() => this.#release());
  }

  /** A pool spec change: the new wake timeout applies to requests held from now on. */
  configure(s: { wakeTimeoutMs?: number }): void {
    if (s.wakeTimeoutMs !== undefined) this.#wakeTimeoutMs = s.wakeTimeoutMs;
  }

  get wakeTimeoutMs(): number {
    return this.#wakeTimeoutMs;
  }

  /** Counts one new request or tunnel toward requestsPerSecond. */
  arrived(): void {
    const second = Math.floor(this.#now() / 1000);
    const i = second % RATE_WINDOW_S;
    if (this.#bucketSecond[i] !== second) {
      this.#bucketSecond[i] = second;
      this.#buckets[i] = 0;
    }
    this.#buckets[i] = (this.#buckets[i] ?? 0) + 1;
  }

  /** Whether a new request must be held: waking is on and no member is eligible. */
  mustWait(): boolean {
    return this.#wakeTimeoutMs > 0 && !this.#closed && this.#members.eligible().length === 0;
  }

  /** Holds a request until a member is eligible, the wake times out, or its client leaves. */
  hold(held: HeldRequest): void {
    if (!this.mustWait()) {
      held.go();
      return;
    }
    const waiter: Waiter = {
      held,
      timer: setTimeout(() => {
        this.#drop(waiter);
        held.giveUp(
          this.#retryAfterS(),
          `no Ready member within the wake timeout (${this.#wakeTimeoutMs} ms)`,
        );
      }, this.#wakeTimeoutMs),
      // A client that gives up while held is nobody's failure: no member was tried.
      onClose: () => this.#drop(waiter),
    };
    held.socket.once('close', waiter.onClose);
    this.#waiters.add(waiter);
    this.#onWake?.();
  }

  /** The load now. */
  load(): GatewayLoad {
    const now = this.#now();
    const second = Math.floor(now / 1000);
    let arrivals = 0;
    for (let i = 0; i < RATE_WINDOW_S; i++) {
      const s = this.#bucketSecond[i] ?? -1;
      if (s > second - RATE_WINDOW_S && s <= second) arrivals += this.#buckets[i] ?? 0;
    }
    let activeConnections = 0;
    for (const u of this.#members.usage().values()) activeConnections += u.connections;
    return {
      at: now,
      activeConnections,
      requestsPerSecond: arrivals / RATE_WINDOW_S,
      waiting: this.#waiters.size,
    };
  }

  /** The gateway drains: every held request gets its 503 now, and no new one is held. */
  close(): void {
    this.#closed = true;
    this.#stopListening();
    for (const w of [...this.#waiters]) {
      this.#drop(w);
      w.held.giveUp(this.#retryAfterS(), 'the gateway is shutting down');
    }
  }

  #release(): void {
    if (!this.#waiters.size || this.#members.eligible().length === 0) return;
    for (const w of [...this.#waiters]) {
      this.#drop(w);
      w.held.go();
    }
  }

  #drop(w: Waiter): void {
    clearTimeout(w.timer);
    w.held.socket.off('close', w.onClose);
    this.#waiters.delete(w);
  }

  // A pool that did not wake within the timeout is still waking: retry in about that long.
  #retryAfterS(): number {
    return Math.max(1, Math.ceil(this.#wakeTimeoutMs / 1000));
  }
}
