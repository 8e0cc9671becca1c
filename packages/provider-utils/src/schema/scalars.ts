import { formatValue } from '../config/format-value.js';
import { expectedMessage, FAILED, type Runner, Schema } from './schema.js';

const isString: Runner<string> = (v, p, i) => {
  if (typeof v === 'string') return v;
  i.push({ path: p, message: expectedMessage('string', v) });
  return FAILED;
};

const isNumber: Runner<number> = (v, p, i) => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  i.push({ path: p, message: expectedMessage('number', v) });
  return FAILED;
};

/** A string, with optional length bounds and patterns. */
export class StringSchema extends Schema<string> {
  constructor(run: Runner<string> = isString) {
    super(run);
  }

  #with(ok: (s: string) => boolean, message: (s: string) => string): StringSchema {
    const base = this.refine(ok, message);
    return new StringSchema((v, p, i) => base.run(v, p, i));
  }

  /** At least `n` characters (`min(1)`: not empty). */
  min(n: number): StringSchema {
    return this.#with(
      (s) => s.length >= n,
      (s) => (n <= 1 ? 'must not be empty' : `must be at least ${n} characters, got ${formatValue(s)}`),
    );
  }

  /** At most `n` characters. */
  max(n: number): StringSchema {
    return this.#with(
      (s) => s.length <= n,
      (s) => `must be at most ${n} characters, got ${s.length} (${formatValue(s)})`,
    );
  }

  /** Matches `re`; the message says what a valid value is: `"x" is not a valid <what>`. */
  pattern(re: RegExp, what: string): StringSchema {
    return this.#with(
      (s) => re.test(s),
      (s) => `${formatValue(s)} is not a valid ${what}`,
    );
  }
}

/** A finite number, optionally an integer, with optional bounds. */
export class NumberSchema extends Schema<number> {
  constructor(run: Runner<number> = isNumber) {
    super(run);
  }

  #with(ok: (n: number) => boolean, message: (n: number) => string): NumberSchema {
    const base = this.refine(ok, message);
    return new NumberSchema((v, p, i) => base.run(v, p, i));
  }

  int(): NumberSchema {
    return this.#with(Number.isInteger, (n) => `must be an integer, got ${formatValue(n)}`);
  }

  min(n: number): NumberSchema {
    return this.#with(
      (x) => x >= n,
      (x) => `must be >= ${n}, got ${formatValue(x)}`,
    );
  }

  max(n: number): NumberSchema {
    return this.#with(
      (x) => x <= n,
      (x) => `must be <= ${n}, got ${formatValue(x)}`,
    );
  }
}

/** Any string (`.min(1)` and friends narrow it). */
export const string = (): StringSchema => new StringSchema();

/** A finite number, within `[min, max]` when given. */
export function number(min?: number, max?: number): NumberSchema {
  let s = new NumberSchema();
  if (min !== undefined) s = s.min(min);
  if (max !== undefined) s = s.max(max);
  return s;
}

/** An integer, within `[min, max]` when given. */
export function int(min?: number, max?: number): NumberSchema {
  let s = new NumberSchema().int();
  if (min !== undefined) s = s.min(min);
  if (max !== undefined) s = s.max(max);
  return s;
}

/** `true` or `false` (YAML 1.2: `yes` is a string, and refused with a message saying so). */
export const boolean = (): Schema<boolean> =>
  new Schema((v, p, i) => {
    if (typeof v === 'boolean') return v;
    i.push({ path: p, message: expectedMessage('boolean', v) });
    return FAILED;
  });

/** One of `values`: `must be one of "a", "b", got "c"`. */
export function oneOf<const T extends readonly (string | number | boolean)[]>(values: T): Schema<T[number]> {
  return new Schema((v, p, i) => {
    if ((values as readonly unknown[]).includes(v)) return v as T[number];
    i.push({
      path: p,
      message:
        v === undefined
          ? 'required'
          : `must be one of ${values.map((x) => formatValue(x)).join(', ')}, got ${formatValue(v)}`,
    });
    return FAILED;
  });
}

/** Anything, unchecked (a block a factory takes as written). */
export const unknown = (): Schema<unknown> => new Schema((v) => v);
