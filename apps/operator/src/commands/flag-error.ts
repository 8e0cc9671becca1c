const MARKER = Symbol.for('@egress-proxies/operator.FlagError');

/** A bad flag: the message names the flag and the value. */
export class FlagError extends Error {
  static readonly code = 'INVALID_FLAG';
  readonly [MARKER] = true;
  readonly code = FlagError.code;

  constructor(message: string) {
    super(message);
    this.name = 'FlagError';
  }

  static isInstance(value: unknown): value is FlagError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
