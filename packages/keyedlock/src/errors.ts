const INVALID_ARGUMENT = Symbol.for('@egress-proxies/keyedlock/InvalidArgumentError');

/**
 * A caller passed something the lock cannot use (a non-function to `withLock`, a
 * `signal` that is not an AbortSignal, an `undefined` key). It is a programming
 * error, so it is never retried; the message names the parameter and the type received.
 */
export class InvalidArgumentError extends TypeError {
  readonly code = 'KEYEDLOCK_INVALID_ARGUMENT' as const;
  readonly [INVALID_ARGUMENT] = true;

  constructor(message: string) {
    super(message);
    this.name = 'InvalidArgumentError';
  }

  /** True for errors from any copy of this package (checks a registered symbol, not the class). */
  static isInstance(value: unknown): value is InvalidArgumentError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[INVALID_ARGUMENT] === true
    );
  }
}

/**
 * Names the kind of a bad value without printing it: keys and callbacks can carry
 * identifiers the caller would not want in a log line.
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  if (type === 'object') {
    const name = (value as object).constructor?.name;
    return name && name !== 'Object' ? `an object (${name})` : 'an object';
  }
  return type === 'undefined' ? 'undefined' : `a ${type}`;
}
