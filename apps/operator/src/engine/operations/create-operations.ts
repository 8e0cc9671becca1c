import { setMaxListeners } from 'node:events';
import { ConcurrencyLimit } from './concurrency-limit.js';

export type CreateOperationState = 'queued' | 'running' | 'succeeded' | 'failed';

/** What a reconcile pass sees of a create running outside it. */
export interface CreateOperationView {
  readonly provider: string;
  /** What the create was started for (uid and spec hash): a result for another spec is not used as-is. */
  readonly token: string;
  /** The spec hash the instance is created from. */
  readonly hash: string;
  readonly state: CreateOperationState;
  /** When it was started (queued), epoch ms. */
  readonly queuedAt: number;
  /** When it took a slot of its provider's limit, epoch ms. */
  readonly runningSince?: number;
  /** How many creates of the same provider were ahead of it when it was queued. */
  readonly aheadAtQueue: number;
  readonly id?: string;
  readonly error?: unknown;
  readonly cancelled: boolean;
  /** The latest progress the provider reported while it runs (`image download 43% (...)`). */
  readonly progress?: string;
  /**
   * Started by a deletion to learn what an interrupted create made: it must run to its end (or
   * its deadline), so a deletion never aborts it.
   */
  readonly settle?: boolean;
  /** When `cancelAfter` aborts it unless it settles first, epoch ms. */
  readonly abortAt?: number;
}

export interface CreateOperationsOptions {
  /** Concurrent creates per provider entry; 8 when absent. */
  limit?: number | ((provider: string) => number);
  /** Called when an operation starts running and when it settles, so the key is reconciled again. */
  notify?: (key: string) => void;
  now?: () => number;
  /**
   * The least time between two reconciles caused by progress of one create (each writes the
   * Proxy's status); 10 s when absent. The first report is passed on at once.
   */
  progressIntervalMs?: number;
}

interface Entry {
  view: CreateOperationView;
  abort: AbortController;
  done: Promise<void>;
  /** The timer `cancelAfter` set. */
  cancelTimer?: ReturnType<typeof setTimeout>;
}

/**
 * Blocking creates, tracked per Proxy key and run outside reconcile passes: a create runs to the
 * provider's own budget (no pass deadline cuts it), holds no worker while it runs, and at most
 * `limit` creates of one provider run at once. A pass starts one, reads its state into the
 * Proxy's status, and takes its result once it settled.
 */
export class CreateOperations {
  readonly #entries = new Map<string, Entry>();
  /** Keys whose `status.pendingCreate` this process wrote, by its time, while no create of theirs ran. */
  readonly #untouched = new Map<string, string>();
  readonly #limits = new Map<string, ConcurrencyLimit>();
  readonly #stopped = new AbortController();

  constructor(private readonly opts: CreateOperationsOptions = {}) {}

  #limit(provider: string): ConcurrencyLimit {
    let l = this.#limits.get(provider);
    if (!l) {
      const n = typeof this.opts.limit === 'function' ? this.opts.limit(provider) : (this.opts.limit ?? 8);
      l = new ConcurrencyLimit(n);
      this.#limits.set(provider, l);
    }
    return l;
  }

  #now(): number {
    return this.opts.now ? this.opts.now() : Date.now();
  }

  /** The operation of `key`, settled or not. */
  peek(key: string): CreateOperationView | undefined {
    return this.#entries.get(key)?.view;
  }

  /** Removes and returns a settled operation of `key`; undefined while it still runs. */
  take(key: string): CreateOperationView | undefined {
    const e = this.#entries.get(key);
    if (!e || (e.view.state !== 'succeeded' && e.view.state !== 'failed')) return undefined;
    this.#entries.delete(key);
    return e.view;
  }

  /**
   * Starts the create of `key` (a running one is returned unchanged). `run` gets the
   * operation's signal: aborted by `cancel` or `stop`, never by a pass deadline.
   */
  start(
    key: string,
    meta: { provider: string; token: string; hash: string; settle?: boolean },
    run: (signal: AbortSignal, progress: (text: string) => void) => Promise<string>,
  ): CreateOperationView {
    const existing = this.#entries.get(key);
    if (existing) return existing.view;
    const limit = this.#limit(meta.provider);
    const abort = new AbortController();
    const signal = AbortSignal.any([abort.signal, this.#stopped.signal]);
    // The provider may run many steps at once under this one signal.
    setMaxListeners(64, signal);
    const entry: Entry = {
      view: {
        ...meta,
        state: 'queued',
        queuedAt: this.#now(),
        aheadAtQueue: limit.held < limit.limit ? 0 : limit.waiting,
        cancelled: false,
      },
      abort,
      done: Promise.resolve(),
    };
    this.#entries.set(key, entry);
    const update = (patch: Partial<CreateOperationView>) => {
      entry.view = { ...entry.view, ...patch };
    };
    // Progress reaches the status through a reconcile of the key: at most one per interval, and
    // a report inside the interval is shown by the reconcile scheduled at its end.
    let lastNotified = Number.NEGATIVE_INFINITY;
    let pending: ReturnType<typeof setTimeout> | undefined;
    const progress = (text: string) => {
      if (entry.view.state !== 'running' || entry.view.progress === text) return;
      update({ progress: text });
      if (pending) return;
      const wait = lastNotified + (this.opts.progressIntervalMs ?? 10_000) - this.#now();
      const fire = () => {
        pending = undefined;
        lastNotified = this.#now();
        if (entry.view.state === 'running') this.opts.notify?.(key);
      };
      if (wait <= 0) fire();
      else {
        pending = setTimeout(fire, wait);
        pending.unref?.();
      }
    };
    entry.done = (async () => {
      try {
        await limit.acquire(signal);
        if (signal.aborted) {
          limit.release();
          signal.throwIfAborted();
        }
      } catch (error) {
        clearTimeout(entry.cancelTimer);
        update({ state: 'failed', error });
        this.opts.notify?.(key);
        return;
      }
      this.#untouched.delete(key);
      update({ state: 'running', runningSince: this.#now() });
      this.opts.notify?.(key);
      try {
        update({ state: 'succeeded', id: await run(signal, progress) });
      } catch (error) {
        update({ state: 'failed', error });
      } finally {
        clearTimeout(pending);
        clearTimeout(entry.cancelTimer);
        limit.release();
      }
      this.opts.notify?.(key);
    })();
    return entry.view;
  }

  /** Aborts the create of `key` (it settles as failed, or succeeded if it finished first). */
  cancel(key: string, reason: string): void {
    const e = this.#entries.get(key);
    if (!e || e.view.state === 'succeeded' || e.view.state === 'failed') return;
    clearTimeout(e.cancelTimer);
    e.view = { ...e.view, cancelled: true };
    // An AbortError, as the contract expects of a caller's abort (2.6): the provider answers
    // ABORTED, and the reason says why.
    e.abort.abort(new DOMException(reason, 'AbortError'));
  }

  /**
   * Aborts the create of `key` once `graceMs` pass, unless it settles first: the Proxy it runs
   * for changed or is going, and a create that hangs must not hold it forever. The first call
   * sets the time; later ones keep it. Returns that time (epoch ms), or undefined when nothing
   * runs.
   */
  cancelAfter(key: string, reason: string, graceMs: number): number | undefined {
    const e = this.#entries.get(key);
    if (!e || e.view.state === 'succeeded' || e.view.state === 'failed') return undefined;
    if (e.view.abortAt !== undefined) return e.view.abortAt;
    e.view = { ...e.view, abortAt: this.#now() + graceMs };
    e.cancelTimer = setTimeout(() => this.cancel(key, reason), graceMs);
    e.cancelTimer.unref?.();
    return e.view.abortAt;
  }

  /**
   * Records that this process wrote `key`'s pending-create marker at `startedTime`: until a
   * create of the key runs, nothing was made under that marker.
   */
  mark(key: string, startedTime: string): void {
    this.#untouched.set(key, startedTime);
  }

  /** The marker time recorded by `mark` while no create of `key` has run since; `forget` drops it. */
  untouched(key: string): string | undefined {
    return this.#untouched.get(key);
  }

  forget(key: string): void {
    this.#untouched.delete(key);
  }

  /** The operations of one key, as a reconcile pass of that key uses them. */
  slot(key: string): CreateOperationSlot {
    return {
      peek: () => this.peek(key),
      take: () => this.take(key),
      start: (meta, run) => this.start(key, meta, run),
      cancel: (reason) => this.cancel(key, reason),
      cancelAfter: (reason, graceMs) => this.cancelAfter(key, reason, graceMs),
      mark: (startedTime) => this.mark(key, startedTime),
      untouched: () => this.untouched(key),
      forget: () => this.forget(key),
    };
  }

  /** Creates running or queued for `provider` (all providers when absent). */
  inFlight(provider?: string): number {
    let n = 0;
    for (const e of this.#entries.values()) {
      if (
        (provider === undefined || e.view.provider === provider) &&
        (e.view.state === 'queued' || e.view.state === 'running')
      )
        n++;
    }
    return n;
  }

  /** Waits up to `graceMs` for creates in flight, then aborts the rest and waits for them to settle. */
  async stop(graceMs: number): Promise<void> {
    const all = () => Promise.all([...this.#entries.values()].map((e) => e.done));
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([all(), new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    for (const e of this.#entries.values()) clearTimeout(e.cancelTimer);
    this.#stopped.abort(new DOMException('operator stopping', 'AbortError'));
    await all();
  }
}

/** `CreateOperations` bound to one key. */
export interface CreateOperationSlot {
  peek(): CreateOperationView | undefined;
  take(): CreateOperationView | undefined;
  start(
    meta: { provider: string; token: string; hash: string; settle?: boolean },
    run: (signal: AbortSignal, progress: (text: string) => void) => Promise<string>,
  ): CreateOperationView;
  cancel(reason: string): void;
  /** See `CreateOperations.cancelAfter`. */
  cancelAfter(reason: string, graceMs: number): number | undefined;
  /** See `CreateOperations.mark`. */
  mark(startedTime: string): void;
  untouched(): string | undefined;
  forget(): void;
}
