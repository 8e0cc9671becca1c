import { unknownKeyMessage } from '../config/did-you-mean.js';
import {
  expectedMessage,
  FAILED,
  type Infer,
  type InferInput,
  type PartialRunner,
  Schema,
} from './schema.js';

// biome-ignore lint/suspicious/noExplicitAny: a shape holds schemas of any output and input
export type Shape = Record<string, Schema<any, any>>;

type OptionalKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? K : never }[keyof T];
type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** Keys whose type admits `undefined` become optional (`a?: T | undefined`). */
type WithOptional<T> = Simplify<
  { [K in Exclude<keyof T, OptionalKeys<T>>]: T[K] } & { [K in OptionalKeys<T>]?: T[K] }
>;

export type ObjectOutput<S extends Shape> = WithOptional<{ [K in keyof S]: Infer<S[K]> }>;
export type ObjectInput<S extends Shape> = WithOptional<{ [K in keyof S]: InferInput<S[K]> }>;

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * An object with exactly the keys of `shape`: a key outside it is an issue at that key, with a
 * did-you-mean for a near miss and the known keys listed. The output holds the shape's keys in
 * shape order; an optional key that is absent stays absent.
 */
export function object<S extends Shape>(shape: S): Schema<ObjectOutput<S>, ObjectInput<S>> {
  const keys = Object.keys(shape);
  const partial: PartialRunner = (v, p, i) => {
    if (!isPlainObject(v)) return undefined;
    let ok = true;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v)) {
      if (!Object.hasOwn(shape, key)) {
        i.push({ path: [...p, key], message: unknownKeyMessage(key, keys) });
        ok = false;
      }
    }
    for (const key of keys) {
      const raw = Object.hasOwn(v, key) ? v[key] : undefined;
      const r = (shape[key] as Schema<unknown>).run(raw, [...p, key], i);
      if (r === FAILED) {
        ok = false;
        if (raw !== undefined) out[key] = raw;
      } else if (r !== undefined) out[key] = r;
    }
    return { value: out, ok };
  };
  return new Schema<ObjectOutput<S>, ObjectInput<S>>((v, p, i) => {
    const r = partial(v, p, i);
    if (!r) {
      i.push({ path: p, message: expectedMessage('object', v) });
      return FAILED;
    }
    return r.ok ? (r.value as ObjectOutput<S>) : FAILED;
  }, partial);
}
