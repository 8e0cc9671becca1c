import { describeValue, InvalidArgumentError } from './errors.js';

/** Options for one `acquire` or `withLock` call. */
export interface LockOptions {
  /**
   * Stops waiting for the lock when aborted: the call rejects with `signal.reason` and the
   * waiter leaves the queue. Has no effect once the lock is held. For a deadline, pass
   * `AbortSignal.timeout(ms)` (or combine with `AbortSignal.any([...])`).
   */
  signal?: AbortSignal | undefined;
}

/** Reads and checks `options.signal`; throws InvalidArgumentError for anything unusable. */
export function readSignal(method: string, options: LockOptions | undefined): AbortSignal | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError(
      `KeyedLock.${method}: options must be an object, got ${describeValue(options)}`,
    );
  }
  const signal = options.signal;
  if (signal === undefined) return undefined;
  // Duck-typed so a signal from another realm or polyfill still works.
  if (
    typeof signal !== 'object' ||
    signal === null ||
    typeof signal.aborted !== 'boolean' ||
    typeof signal.addEventListener !== 'function' ||
    typeof signal.removeEventListener !== 'function'
  ) {
    throw new InvalidArgumentError(
      `KeyedLock.${method}: options.signal must be an AbortSignal, got ${describeValue(signal)}`,
    );
  }
  return signal;
}
