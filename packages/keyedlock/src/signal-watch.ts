import { abortReason } from './abort.js';

/** What a watch needs from a waiting node: intrusive links and a way to abort it. */
export interface Watched {
  watch: SignalWatch | undefined;
  watchPrev: Watched | undefined;
  watchNext: Watched | undefined;
  abort(reason: unknown): void;
}

// Shared so registering allocates no options object.
const ONCE = { once: true } as const;

/**
 * Signals that some waiter is queued on, each with one watch. An entry exists exactly while
 * its watch has a waiter, so the map never outgrows the waiters.
 */
const watches = new Map<AbortSignal, SignalWatch>();

/**
 * The single abort listener for every waiter that passed one signal. A shared, long-lived
 * signal (a shutdown signal, say) would otherwise collect one listener per waiter: Node
 * warns past ten, and removing each one on grant scans the whole list.
 */
export class SignalWatch {
  head: Watched | undefined = undefined;
  tail: Watched | undefined = undefined;

  constructor(readonly signal: AbortSignal) {}

  handleEvent(): void {
    watches.delete(this.signal);
    const reason = abortReason(this.signal);
    let node = this.head;
    this.head = undefined;
    this.tail = undefined;
    while (node !== undefined) {
      const next = node.watchNext;
      node.watch = undefined;
      node.watchPrev = undefined;
      node.watchNext = undefined;
      node.abort(reason);
      node = next;
    }
  }
}

/** Aborts `node` when `signal` aborts, until `unwatch(node)`. */
export function watch(signal: AbortSignal, node: Watched): void {
  let entry = watches.get(signal);
  if (entry === undefined) {
    entry = new SignalWatch(signal);
    watches.set(signal, entry);
    signal.addEventListener('abort', entry, ONCE);
  }
  node.watch = entry;
  const tail = entry.tail;
  if (tail === undefined) entry.head = node;
  else {
    tail.watchNext = node;
    node.watchPrev = tail;
  }
  entry.tail = node;
}

/** Stops watching `node`; the last node of a signal takes the listener with it. */
export function unwatch(node: Watched): void {
  const entry = node.watch;
  if (entry === undefined) return;
  const prev = node.watchPrev;
  const next = node.watchNext;
  if (prev === undefined) entry.head = next;
  else prev.watchNext = next;
  if (next === undefined) entry.tail = prev;
  else next.watchPrev = prev;
  node.watch = undefined;
  node.watchPrev = undefined;
  node.watchNext = undefined;
  if (entry.head === undefined) {
    watches.delete(entry.signal);
    entry.signal.removeEventListener('abort', entry);
  }
}

/** For tests: how many signals currently have a watch. */
export function watchedSignalCount(): number {
  return watches.size;
}
