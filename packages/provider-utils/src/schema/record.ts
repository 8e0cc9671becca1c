import { formatValue } from '../config/format-value.js';
import { isPlainObject } from './object.js';
import { expectedMessage, FAILED, type PartialRunner, Schema, type SchemaIssue } from './schema.js';

/**
 * A `{key: value}` map: each key passes `key` (reported at the key as `invalid key "k": ...`),
 * each value passes `value`.
 */
export function record<Out, In>(
  key: Schema<string>,
  value: Schema<Out, In>,
): Schema<Record<string, Out>, Record<string, In>> {
  const partial: PartialRunner = (v, p, i) => {
    if (!isPlainObject(v)) return undefined;
    let ok = true;
    const out: Record<string, unknown> = {};
    for (const [k, raw] of Object.entries(v)) {
      const keyIssues: SchemaIssue[] = [];
      if (key.run(k, [...p, k], keyIssues) === FAILED) {
        ok = false;
        const why = keyIssues.map((x) => x.message).join('; ');
        i.push({ path: [...p, k], message: `invalid key ${formatValue(k)}${why ? `: ${why}` : ''}` });
      }
      const r = value.run(raw, [...p, k], i);
      if (r === FAILED) ok = false;
      out[k] = r === FAILED ? raw : r;
    }
    return { value: out, ok };
  };
  return new Schema<Record<string, Out>, Record<string, In>>((v, p, i) => {
    const r = partial(v, p, i);
    if (!r) {
      i.push({ path: p, message: expectedMessage('object', v) });
      return FAILED;
    }
    return r.ok ? (r.value as Record<string, Out>) : FAILED;
  }, partial);
}
