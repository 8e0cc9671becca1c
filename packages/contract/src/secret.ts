const REDACTED = '[redacted]';
/** `util.inspect.custom`, a global symbol, so the contract imports nothing from node:util. */
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/**
 * Holds a secret (a token, key or cloud-init document) so that logging, string conversion,
 * JSON and util.inspect all show `[redacted]`; only `reveal()` gives the value.
 */
export class Secret<T = string> {
  readonly #value: T;
  constructor(value: T) {
    this.#value = value;
  }
  reveal(): T {
    return this.#value;
  }
  toString(): string {
    return REDACTED;
  }
  toJSON(): string {
    return REDACTED;
  }
  [INSPECT](): string {
    return REDACTED;
  }
}
