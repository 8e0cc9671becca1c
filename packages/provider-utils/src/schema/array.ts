import { expectedMessage, FAILED, type PartialRunner, Schema } from './schema.js';

const entries = (n: number) => `${n} ${n === 1 ? 'entry' : 'entries'}`;

/** A list whose every item passes `item`; `min`/`max` bound its length. */
export function array<Out, In>(
  item: Schema<Out, In>,
  bounds: { min?: number; max?: number } = {},
): Schema<Out[], In[]> {
  const partial: PartialRunner = (v, p, i) => {
    if (!Array.isArray(v)) return undefined;
    let ok = true;
    if (bounds.min !== undefined && v.length < bounds.min) {
      i.push({ path: p, message: `needs at least ${entries(bounds.min)}, got ${v.length}` });
      ok = false;
    }
    if (bounds.max !== undefined && v.length > bounds.max) {
      i.push({ path: p, message: `allows at most ${entries(bounds.max)}, got ${v.length}` });
      ok = false;
    }
    const out = v.map((raw, index) => {
      const r = item.run(raw, [...p, index], i);
      if (r === FAILED) {
        ok = false;
        return raw;
      }
      return r;
    });
    return { value: out, ok };
  };
  return new Schema<Out[], In[]>((v, p, i) => {
    const r = partial(v, p, i);
    if (!r) {
      i.push({ path: p, message: expectedMessage('array', v) });
      return FAILED;
    }
    return r.ok ? (r.value as Out[]) : FAILED;
  }, partial);
}
