import type { ConfigSchema, ConfigSchemaResult } from '@egress-proxies/contract';
import { formatValue } from '../config/format-value.js';

/** Where in the validated value an issue is: keys and indexes from the root. */
export type SchemaPath = readonly (string | number)[];

/** One problem found: where, and a sentence naming the bad value and what was expected. */
export interface SchemaIssue {
  readonly path: SchemaPath;
  readonly message: string;
}

/** Marks a failed run; its issues are already recorded. */
export const FAILED: unique symbol = Symbol('schema.failed');
export type Failed = typeof FAILED;

/** Validates `value` found at `path`, pushing issues; the output, or FAILED. */
export type Runner<Out> = (value: unknown, path: SchemaPath, issues: SchemaIssue[]) => Out | Failed;

/**
 * A container's run as far as it got: each part that parsed as its output, each part that failed
 * as its input, and whether all parsed; undefined when the value is not the container's kind.
 * Cross-field checks run on it, so one load reports a bad field and a cross-field rule together.
 */
export type PartialRunner = (
  value: unknown,
  path: SchemaPath,
  issues: SchemaIssue[],
) => { value: unknown; ok: boolean } | undefined;

/** What a `check` callback reports through. */
export interface CheckContext {
  /** Records an issue at the checked value, or below it at `path` (relative). */
  issue(message: string, path?: SchemaPath): void;
}

type Message<T> = string | ((value: T) => string);

const say = <T>(message: Message<T>, value: T) => (typeof message === 'function' ? message(value) : message);

/** Fresh copies of plain data, so a default object is never shared between two parses. */
function cloneData<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneData) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cloneData(v)])) as T;
  }
  return value;
}

/**
 * A typed validator of config values: `Out` is what it returns (defaults filled), `In` what it
 * accepts. It is a Standard Schema (`~standard`), so it is a `ConfigSchema` wherever one is taken.
 */
export class Schema<Out, In = Out> implements ConfigSchema<Out> {
  /** Type-only: what the schema returns and accepts (`Infer`, `InferInput`). */
  declare readonly __types: { readonly output: Out; readonly input: In };
  readonly #run: Runner<Out>;
  readonly #partial: PartialRunner | undefined;

  constructor(run: Runner<Out>, partial?: PartialRunner) {
    this.#run = run;
    this.#partial = partial;
  }

  /** Validates `value` at `path`, recording issues; the output or FAILED. Composition uses it. */
  run(value: unknown, path: SchemaPath, issues: SchemaIssue[]): Out | Failed {
    return this.#run(value, path, issues);
  }

  /** Containers' partial run (see `PartialRunner`); undefined for scalars. */
  get partial(): PartialRunner | undefined {
    return this.#partial;
  }

  /** `undefined` is accepted and returned (an absent field). */
  optional(): Schema<Out | undefined, In | undefined> {
    return new Schema<Out | undefined, In | undefined>((v, p, i) =>
      v === undefined ? undefined : this.run(v, p, i),
    );
  }

  /**
   * An absent field (`undefined`) becomes `value`; a function is called for every parse, and a
   * plain object or array is copied, so no two parses share a default.
   */
  default(
    value: Exclude<Out, undefined> | (() => Exclude<Out, undefined>),
  ): Schema<Exclude<Out, undefined>, In | undefined> {
    const make =
      typeof value === 'function' ? (value as () => Exclude<Out, undefined>) : () => cloneData(value);
    return new Schema<Exclude<Out, undefined>, In | undefined>((v, p, i) =>
      v === undefined ? make() : (this.run(v, p, i) as Exclude<Out, undefined>),
    );
  }

  /** Fails with `message` when `ok` is false for a value that passed everything before. */
  refine(ok: (value: Out) => boolean, message: Message<Out>): Schema<Out, In> {
    return this.check((value, ctx) => {
      if (!ok(value)) ctx.issue(say(message, value));
    });
  }

  /**
   * A rule that may report several issues, anywhere below the value. On an object, array or
   * record it runs even when a part of the value failed (it sees that part's input), as long as
   * the value is of the container's kind; on a scalar it runs once the value passed.
   */
  check(fn: (value: Out, ctx: CheckContext) => void): Schema<Out, In> {
    const ctxAt = (path: SchemaPath, issues: SchemaIssue[]): CheckContext => ({
      issue: (message, sub = []) => issues.push({ path: [...path, ...sub], message }),
    });
    const partial = this.#partial;
    if (partial) {
      const checked: PartialRunner = (v, p, i) => {
        const r = partial(v, p, i);
        if (!r) return r;
        const before = i.length;
        fn(r.value as Out, ctxAt(p, i));
        return { value: r.value, ok: r.ok && i.length === before };
      };
      return new Schema<Out, In>((v, p, i) => {
        const r = checked(v, p, i);
        // Not the container's kind: the plain run reports that.
        if (!r) return this.run(v, p, i);
        return r.ok ? (r.value as Out) : FAILED;
      }, checked);
    }
    return new Schema<Out, In>((v, p, i) => {
      const r = this.run(v, p, i);
      if (r === FAILED) return r;
      const before = i.length;
      fn(r, ctxAt(p, i));
      return i.length === before ? r : FAILED;
    });
  }

  /** Maps a valid value to another shape. */
  transform<U>(fn: (value: Out) => U): Schema<U, In> {
    return new Schema<U, In>((v, p, i) => {
      const r = this.run(v, p, i);
      return r === FAILED ? FAILED : fn(r as Out);
    });
  }

  /** Validates a whole value: its output, or every issue found. */
  validate(value: unknown): { ok: true; value: Out } | { ok: false; issues: SchemaIssue[] } {
    const issues: SchemaIssue[] = [];
    const r = this.run(value, [], issues);
    if (r === FAILED || issues.length > 0) {
      // A run fails exactly when it records an issue; both are checked so a bug cannot pass.
      return { ok: false, issues: issues.length > 0 ? issues : [{ path: [], message: 'invalid value' }] };
    }
    return { ok: true, value: r };
  }

  get '~standard'(): ConfigSchema<Out>['~standard'] {
    return {
      version: 1,
      vendor: 'egress-proxies',
      validate: (value: unknown): ConfigSchemaResult<Out> => {
        const r = this.validate(value);
        return r.ok ? { value: r.value } : { issues: r.issues };
      },
    };
  }
}

/** The output type of a schema: what it returns, defaults filled. */
export type Infer<S> = S extends Schema<infer Out, unknown> ? Out : never;
/** The input type of a schema: what a config file may hold (defaulted fields optional). */
export type InferInput<S> = S extends Schema<unknown, infer In> ? In : never;

/** `required` for an absent value, else `expected <what>, got <type> <value>`. */
export function expectedMessage(what: string, value: unknown): string {
  if (value === undefined) return 'required';
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return `expected ${what}, got ${type} ${formatValue(value)}`;
}
