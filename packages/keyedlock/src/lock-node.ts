import { type SignalWatch, unwatch, type Watched, watch } from './signal-watch.js';

/** Releases one hold. Calling it again, or after the lock moved on, does nothing. */
export type Release = () => void;

/** Per key, the table maps to the newest node: appending is O(1) without a separate queue object. */
export type LockTable<K> = Map<K, LockNode<K>>;

const WAITING = 0;
const HOLDING = 1;
const FINISHED = 2;
type NodeState = typeof WAITING | typeof HOLDING | typeof FINISHED;

/**
 * One acquisition of one key. Nodes of a key form a doubly linked list whose head holds
 * the lock and whose tail is what the table stores; a waiting node therefore always has a
 * `prev`, and leaving the middle of the queue on abort is O(1).
 */
export class LockNode<K> implements Watched {
  state: NodeState;
  prev: LockNode<K> | undefined = undefined;
  next: LockNode<K> | undefined = undefined;
  resolve: ((release: Release | undefined) => void) | undefined = undefined;
  reject: ((reason: unknown) => void) | undefined = undefined;
  /** What the wait resolves with: a Release for `acquire`, nothing for `withLock`. */
  grantValue: Release | undefined = undefined;
  watch: SignalWatch | undefined = undefined;
  watchPrev: Watched | undefined = undefined;
  watchNext: Watched | undefined = undefined;

  constructor(
    readonly table: LockTable<K>,
    readonly key: K,
    holding: boolean,
  ) {
    this.state = holding ? HOLDING : WAITING;
  }

  /** Queues this node behind `tail`; the promise settles when granted or aborted. */
  enqueue(tail: LockNode<K>, signal: AbortSignal | undefined): Promise<Release | undefined> {
    this.prev = tail;
    tail.next = this;
    this.table.set(this.key, this);
    const promise = new Promise<Release | undefined>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    if (signal !== undefined) watch(signal, this);
    return promise;
  }

  release(): void {
    if (this.state !== HOLDING) return;
    this.state = FINISHED;
    const next = this.next;
    if (next === undefined) {
      // Holding with no successor means this node is the tail: the key goes idle.
      this.table.delete(this.key);
      return;
    }
    this.next = undefined;
    next.prev = undefined;
    next.grant();
  }

  private grant(): void {
    this.state = HOLDING;
    // From here an abort must not touch this node, and the signal must not retain it.
    if (this.watch !== undefined) unwatch(this);
    const resolve = this.resolve as (release: Release | undefined) => void;
    this.resolve = undefined;
    this.reject = undefined;
    resolve(this.grantValue);
  }

  /** Leaves the queue and rejects; called by the signal watch, only while waiting. */
  abort(reason: unknown): void {
    if (this.state !== WAITING) return;
    this.state = FINISHED;
    const prev = this.prev as LockNode<K>;
    const next = this.next;
    prev.next = next;
    if (next === undefined) this.table.set(this.key, prev);
    else next.prev = prev;
    this.prev = undefined;
    this.next = undefined;
    const reject = this.reject as (reason: unknown) => void;
    this.resolve = undefined;
    this.reject = undefined;
    reject(reason);
  }
}
