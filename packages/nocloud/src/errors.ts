const INVALID_INPUT = Symbol.for('@egress-proxies/nocloud/SeedInputError');
const TOO_LARGE = Symbol.for('@egress-proxies/nocloud/SeedTooLargeError');

/**
 * A seed field (or option) has the wrong type or shape. The message names the field and
 * the kind of value received, never the value itself: seed contents carry secrets.
 */
export class SeedInputError extends TypeError {
  readonly code = 'NOCLOUD_INVALID_INPUT' as const;
  readonly [INVALID_INPUT] = true;
  /** The offending field, e.g. `userData` or `options.date`. */
  readonly field: string;

  constructor(field: string, message: string) {
    super(message);
    this.name = 'SeedInputError';
    this.field = field;
  }

  /** True for errors from any copy of this package (checks a registered symbol, not the class). */
  static isInstance(value: unknown): value is SeedInputError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[INVALID_INPUT] === true
    );
  }
}

/** A seed file exceeds the per-file limit. Carries the field, its byte size and the limit. */
export class SeedTooLargeError extends RangeError {
  readonly code = 'NOCLOUD_SEED_TOO_LARGE' as const;
  readonly [TOO_LARGE] = true;
  readonly field: string;
  readonly size: number;
  readonly limit: number;

  /** `atLeast` marks `size` as a lower bound (a string rejected before it was encoded). */
  constructor(field: string, size: number, limit: number, atLeast = false) {
    super(
      `${field} is ${atLeast ? 'at least ' : ''}${size} bytes; a seed file may be at most ${limit} bytes (16 MiB)`,
    );
    this.name = 'SeedTooLargeError';
    this.field = field;
    this.size = size;
    this.limit = limit;
  }

  static isInstance(value: unknown): value is SeedTooLargeError {
    return (
      typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TOO_LARGE] === true
    );
  }
}

/**
 * Names the kind of a bad value without printing it, so cloud-init contents never end
 * up in a log line through an error message.
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
