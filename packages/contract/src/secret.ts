import { inspect } from 'node:util';

const REDACTED = '[redacted]';

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
  [inspect.custom](): string {
    return REDACTED;
  }
}
