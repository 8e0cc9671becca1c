import { abortReason } from './abort.js';
import { describeValue, InvalidArgumentError } from './errors.js';
import { LockNode, type LockTable, type Release } from './lock-node.js';
import { type LockOptions, readSignal } from './options.js';

let tableOf: <K>(lock: KeyedLock<K>) => ReadonlyMap<K, unknown>;

/**
 * A mutex per key. Waiters on one key are served first come, first served; different keys
 * never wait on each other. A key costs memory only while it is held or waited on: the
 * last release of an idle key removes it.
 *
 * Keys are compared like Map keys (SameValueZero): `'a'` and `'a'` are one key, two
 * distinct objects are two keys. The lock is not reentrant: acquiring a key you already
 * hold waits for yourself forever.
 */
export class KeyedLock<K = string> {
  readonly #table: LockTable<K> = new Map();

  static {
    tableOf = <T>(lock: KeyedLock<T>) => lock.#table;
  }

  /**
   * Waits for `key` and resolves with the function that releases it. With `signal`, an abort
   * while waiting rejects with `signal.reason` and leaves the queue; an already-aborted
   * signal rejects without queueing; an abort after the lock was granted does nothing.
   */
  acquire(key: K, options?: LockOptions): Promise<Release> {
    let signal: AbortSignal | undefined;
    try {
      signal = readSignal('acquire', options);
      checkKey('acquire', key);
    } catch (error) {
      return Promise.reject(error);
    }
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const table = this.#table;
    const tail = table.get(key);
    if (tail === undefined) {
      const node = new LockNode(table, key, true);
      table.set(key, node);
      return Promise.resolve(() => node.release());
    }
    const node = new LockNode(table, key, false);
    node.grantValue = () => node.release();
    return node.enqueue(tail, signal) as Promise<Release>;
  }

  /**
   * Runs `fn` while holding `key` and resolves with its result. The lock is released when
   * `fn` settles, including when it throws (synchronously or not). `signal` only bounds the
   * wait; it is not passed to `fn` and does not interrupt it.
   */
  withLock<T>(key: K, fn: () => T | PromiseLike<T>, options?: LockOptions): Promise<Awaited<T>> {
    let signal: AbortSignal | undefined;
    try {
      if (typeof fn !== 'function') {
        throw new InvalidArgumentError(`KeyedLock.withLock: fn must be a function, got ${describeValue(fn)}`);
      }
      signal = readSignal('withLock', options);
      checkKey('withLock', key);
    } catch (error) {
      return Promise.reject(error);
    }
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const table = this.#table;
    const tail = table.get(key);
    if (tail === undefined) {
      const node = new LockNode(table, key, true);
      table.set(key, node);
      return runHolding(node, fn);
    }
    const node = new LockNode(table, key, false);
    return node.enqueue(tail, signal).then(() => runHolding(node, fn));
  }

  /** True while `key` is held or waited on. */
  isLocked(key: K): boolean {
    return this.#table.has(key);
  }

  /** How many keys are held or waited on; 0 when the lock is idle. */
  get size(): number {
    return this.#table.size;
  }
}

async function runHolding<K, T>(node: LockNode<K>, fn: () => T | PromiseLike<T>): Promise<Awaited<T>> {
  try {
    return await fn();
  } finally {
    node.release();
  }
}

// `undefined` is almost always a missing field (`lock.acquire(spec.name)`), and locking it
// would silently serialize every such caller on one shared key.
function checkKey(method: string, key: unknown): void {
  if (key === undefined) throw new InvalidArgumentError(`KeyedLock.${method}: key must not be undefined`);
}

/** For tests: the internal per-key table, to prove idle keys leave nothing behind. */
export function internalTable<K>(lock: KeyedLock<K>): ReadonlyMap<K, unknown> {
  return tableOf(lock);
}
