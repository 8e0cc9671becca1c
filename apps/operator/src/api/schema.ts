/**
 * A small schema builder with one source for three outputs: the TypeScript type (inferred), the
 * CRD's structural OpenAPI v3 schema, and the operator's own validation with the same rules and
 * messages. Cross-field rules carry both a CEL expression (enforced by the API server) and a
 * predicate (enforced here), written side by side so they cannot drift apart unnoticed.
 */

import { closest } from '@egress-proxies/provider-utils';

/** `unknown field (did you mean "port"?) (known: ...)`: the likely key first, then all of them. */
export function unknownFieldMessage(key: string, known: readonly string[]): string {
  const guess = closest(key, known);
  return `unknown field${guess ? ` (did you mean ${JSON.stringify(guess)}?)` : ''} (known: ${known.join(', ')})`;
}

/** One problem found in a value: where (`spec.port`) and what. */
export interface SchemaIssue {
  path: string;
  message: string;
}

/** A structural OpenAPI v3 schema as the CRD carries it. */
export type OpenApiSchema = { [key: string]: unknown };

/** A cross-field rule: CEL for the API server, a predicate for the operator, one message. */
export interface Rule<T> {
  rule: string;
  message: string;
  /**
   * The operator's message naming the bad values. The CRD carries `message` only: the API server
   * refuses a messageExpression over this schema as too costly.
   */
  explain?: (value: T) => string;
  check: (value: T) => boolean;
}

/**
 * Fields whose values are secrets (cloud-init carries passwords and keys): an issue anywhere under
 * them names the path and the type, never the value, since messages reach status, events and logs.
 */
export const SECRET_FIELDS: ReadonlySet<string> = new Set(['cloudInit']);

const isSecretPath = (path: string): boolean =>
  path.split(/[.[\]]/).some((segment) => SECRET_FIELDS.has(segment));

const show = (v: unknown, path: string): string => {
  if (isSecretPath(path)) return '(value not shown: secret field)';
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 80 ? `${s.slice(0, 77)}...` : s;
};

const typeOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;

const join = (path: string, key: string | number): string =>
  typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;

export abstract class SchemaNode<Out, In = Out> {
  declare readonly _out: Out;
  declare readonly _in: In;
  description?: string;
  isOptional = false;
  defaultValue?: unknown;

  /** The schema without description and default. */
  abstract base(): OpenApiSchema;
  /** Validates `value` (already known to be present) and returns it with defaults filled. */
  abstract parse(value: unknown, path: string, issues: SchemaIssue[]): unknown;

  openapi(): OpenApiSchema {
    const s = this.base();
    if (this.description) s.description = this.description;
    if (this.defaultValue !== undefined) s.default = this.defaultValue;
    return s;
  }

  describe(text: string): this {
    this.description = text;
    return this;
  }

  optional(): SchemaNode<Out | undefined, In | undefined> {
    const c = this.clone();
    c.isOptional = true;
    return c as unknown as SchemaNode<Out | undefined, In | undefined>;
  }

  /** A default the API server fills in (and the operator too, for values that skipped it). */
  default(value: Out): SchemaNode<Out, In | undefined> {
    const c = this.clone();
    c.defaultValue = value;
    c.isOptional = true;
    return c as unknown as SchemaNode<Out, In | undefined>;
  }

  clone(): this {
    return Object.assign(Object.create(Object.getPrototypeOf(this)), this);
  }
}

export type Infer<N> = N extends SchemaNode<infer O, unknown> ? O : never;
export type InferInput<N> = N extends SchemaNode<unknown, infer I> ? I : never;

export interface StringOptions {
  minLength?: number;
  maxLength?: number;
  pattern?: RegExp;
  /** What the pattern means, for the message (`a DNS-1123 label`). */
  patternName?: string;
}

export class StringNode<T extends string = string> extends SchemaNode<T> {
  constructor(
    readonly opts: StringOptions = {},
    readonly values?: readonly T[],
  ) {
    super();
  }
  base(): OpenApiSchema {
    const s: OpenApiSchema = { type: 'string' };
    if (this.values) s.enum = [...this.values];
    if (this.opts.minLength !== undefined) s.minLength = this.opts.minLength;
    if (this.opts.maxLength !== undefined) s.maxLength = this.opts.maxLength;
    if (this.opts.pattern) s.pattern = this.opts.pattern.source;
    return s;
  }
  parse(value: unknown, path: string, issues: SchemaIssue[]): unknown {
    if (typeof value !== 'string') {
      issues.push({ path, message: `expected a string, got ${typeOf(value)} ${show(value, path)}` });
      return value;
    }
    if (this.values && !this.values.includes(value as T)) {
      issues.push({ path, message: `must be one of ${this.values.join(', ')}, got ${show(value, path)}` });
    }
    const { minLength, maxLength, pattern, patternName } = this.opts;
    if (minLength !== undefined && value.length < minLength) {
      issues.push({
        path,
        message:
          minLength === 1
            ? 'must not be empty'
            : `must be at least ${minLength} characters, got ${value.length}`,
      });
    }
    if (maxLength !== undefined && value.length > maxLength) {
      issues.push({ path, message: `must be at most ${maxLength} characters, got ${value.length}` });
    }
    if (pattern && !pattern.test(value)) {
      issues.push({
        path,
        message: `${show(value, path)} is not ${patternName ?? `matching ${pattern.source}`}`,
      });
    }
    return value;
  }
}

export class IntegerNode extends SchemaNode<number> {
  constructor(readonly opts: { minimum?: number; maximum?: number } = {}) {
    super();
  }
  base(): OpenApiSchema {
    const s: OpenApiSchema = { type: 'integer' };
    if (this.opts.minimum !== undefined) s.minimum = this.opts.minimum;
    if (this.opts.maximum !== undefined) s.maximum = this.opts.maximum;
    return s;
  }
  parse(value: unknown, path: string, issues: SchemaIssue[]): unknown {
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      issues.push({ path, message: `expected an integer, got ${typeOf(value)} ${show(value, path)}` });
      return value;
    }
    const { minimum, maximum } = this.opts;
    if (minimum !== undefined && value < minimum)
      issues.push({ path, message: `must be at least ${minimum}, got ${value}` });
    if (maximum !== undefined && value > maximum)
      issues.push({ path, message: `must be at most ${maximum}, got ${value}` });
    return value;
  }
}

export class BooleanNode extends SchemaNode<boolean> {
  base(): OpenApiSchema {
    return { type: 'boolean' };
  }
  parse(value: unknown, path: string, issues: SchemaIssue[]): unknown {
    if (typeof value !== 'boolean')
      issues.push({ path, message: `expected true or false, got ${show(value, path)}` });
    return value;
  }
}

export class DateTimeNode extends SchemaNode<string> {
  base(): OpenApiSchema {
    return { type: 'string', format: 'date-time' };
  }
  parse(value: unknown, path: string, issues: SchemaIssue[]): unknown {
    if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) {
      issues.push({ path, message: `expected an RFC 3339 date-time, got ${show(value, path)}` });
    }
    return value;
  }
}

export type Shape = Record<string, SchemaNode<unknown, unknown>>;
export type OptionalKeys<S extends Shape, Which extends '_out' | '_in'> = {
  [K in keyof S]: undefined extends S[K][Which] ? K : never;
}[keyof S];
export type Simplify<T> = { [K in keyof T]: T[K] } & {};
export type ObjectOut<S extends Shape, W extends '_out' | '_in'> = Simplify<
  { [K in Exclude<keyof S, OptionalKeys<S, W>>]: S[K][W] } & {
    [K in OptionalKeys<S, W>]?: Exclude<S[K][W], undefined>;
  }
>;

export class ObjectNode<S extends Shape> extends SchemaNode<ObjectOut<S, '_out'>, ObjectOut<S, '_in'>> {
  constructor(
    readonly shape: S,
    readonly rules: Rule<ObjectOut<S, '_out'>>[] = [],
  ) {
    super();
  }
  base(): OpenApiSchema {
    const properties: Record<string, OpenApiSchema> = {};
    const required: string[] = [];
    for (const [k, node] of Object.entries(this.shape)) {
      properties[k] = node.openapi();
      if (!node.isOptional) required.push(k);
    }
    const s: OpenApiSchema = { type: 'object', properties };
    if (required.length) s.required = required;
    if (this.rules.length) {
      s['x-kubernetes-validations'] = this.rules.map((r) => ({ rule: r.rule, message: r.message }));
    }
    return s;
  }
  parse(value: unknown, path: string, issues: SchemaIssue[]): unknown {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      issues.push({ path, message: `expected an object, got ${typeOf(value)} ${show(value, path)}` });
      return value;
    }
    const input = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    const before = issues.length;
    for (const key of Object.keys(input)) {
      if (!Object.hasOwn(this.shape, key)) {
        issues.push({ path: join(path, key), message: unknownFieldMessage(key, Object.keys(this.shape)) });
      }
    }
    for (const [k, node] of Object.entries(this.shape)) {
      const v = input[k];
      const at = join(path, k);
      if (v === undefined || v === null) {
        if (node.defaultValue !== undefined) out[k] = structuredClone(node.defaultValue);
        else if (!node.isOptional) issues.push({ path: at, message: 'required' });
        continue;
      }
      out[k] = node.parse(v, at, issues);
    }
    // Cross-field rules only judge a value whose fields are individually valid, as the API server does.
    if (issues.length === before) {
      for (const r of this.rules) {
        if (!r.check(out as ObjectOut<S, '_out'>))
          issues.push({
            path: path || '<root>',
            message: r.explain ? r.explain(out as ObjectOut<S, '_out'>) : r.message,
          });
      }
    }
    return out;
  }
  /** The same object with more rules. */
  withRules(...rules: Rule<ObjectOut<S, '_out'>>[]): ObjectNode<S> {
    return new ObjectNode(this.shape, [...this.rules, ...rules]).describe(
      this.description ?? '',
    ) as ObjectNode<S>;
  }
}

export class ArrayNode<O, I> extends SchemaNode<O[], I[]> {
  constructor(
    readonly item: SchemaNode<O, I>,
    readonly opts: { mapKeys?: string[]; maxItems?: number } = {},
  ) {
    super();
  }
  base(): OpenApiSchema {
    const s: OpenApiSchema = { type: 'array', items: this.item.openapi() };
    if (this.opts.maxItems !== undefined) s.maxItems = this.opts.maxItems;
    if (this.opts.mapKeys) {
      s['x-kubernetes-list-type'] = 'map';
      s['x-kubernetes-list-map-keys'] = this.opts.mapKeys;
    }
    return s;
  }
  parse(value: unknown, path: string, issues: SchemaIssue[]): unknown {
    if (!Array.isArray(value)) {
      issues.push({ path, message: `expected a list, got ${typeOf(value)} ${show(value, path)}` });
      return value;
    }
    if (this.opts.maxItems !== undefined && value.length > this.opts.maxItems) {
      issues.push({ path, message: `must have at most ${this.opts.maxItems} items, got ${value.length}` });
    }
    return value.map((v, i) => this.item.parse(v, join(path, i), issues));
  }
}

export class StringMapNode extends SchemaNode<Record<string, string>> {
  base(): OpenApiSchema {
    return { type: 'object', additionalProperties: { type: 'string' } };
  }
  parse(value: unknown, path: string, issues: SchemaIssue[]): unknown {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      issues.push({ path, message: `expected a map of strings, got ${typeOf(value)} ${show(value, path)}` });
      return value;
    }
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string')
        issues.push({ path: join(path, k), message: `expected a string, got ${show(v, path)}` });
    }
    return value;
  }
}

/** The builders. */
export const s = {
  string: (opts: StringOptions = {}) => new StringNode(opts),
  enum: <const T extends string>(values: readonly T[]) => new StringNode<T>({}, values),
  integer: (opts: { minimum?: number; maximum?: number } = {}) => new IntegerNode(opts),
  boolean: () => new BooleanNode(),
  dateTime: () => new DateTimeNode(),
  object: <S extends Shape>(shape: S, rules: Rule<ObjectOut<S, '_out'>>[] = []) =>
    new ObjectNode(shape, rules),
  array: <O, I>(item: SchemaNode<O, I>, opts: { mapKeys?: string[]; maxItems?: number } = {}) =>
    new ArrayNode(item, opts),
  stringMap: () => new StringMapNode(),
};

/**
 * Validates `value` against `node`: the value with defaults filled, or every issue found.
 * `root` prefixes every path (`spec`).
 */
export function validate<N extends SchemaNode<unknown, unknown>>(
  node: N,
  value: unknown,
  root = '',
): { ok: true; value: Infer<N> } | { ok: false; issues: SchemaIssue[] } {
  const issues: SchemaIssue[] = [];
  if (value === undefined || value === null) {
    if (node.defaultValue !== undefined)
      return { ok: true, value: structuredClone(node.defaultValue) as Infer<N> };
    return { ok: false, issues: [{ path: root || '<root>', message: 'required' }] };
  }
  const out = node.parse(value, root, issues);
  return issues.length ? { ok: false, issues } : { ok: true, value: out as Infer<N> };
}
