/**
 * The small part of Compute's list filter syntax the fake understands: clauses
 * `field = "value"` or `field != "value"` (quotes optional, dotted paths such as
 * `labels.proxy-operator-managed`), each optionally in parentheses, joined by AND.
 */
export type Clause = { path: string[]; op: '=' | '!='; value: string };

export function parseFilter(filter: string | null | undefined): Clause[] {
  if (!filter || filter.trim() === '') return [];
  return filter.split(/\s+AND\s+/i).map((part) => {
    const m = /^\s*\(?\s*([A-Za-z0-9_.-]+)\s*(!=|=)\s*"?([^"()]*)"?\s*\)?\s*$/.exec(part);
    if (!m) throw new Error(`unsupported filter clause: ${part}`);
    return { path: m[1]!.split('.'), op: m[2] as '=' | '!=', value: m[3]! };
  });
}

export function matches(obj: unknown, clauses: Clause[]): boolean {
  return clauses.every((c) => {
    // A label key may itself contain dots in theory; here the first segment picks the map.
    let v: unknown = obj;
    if (c.path[0] === 'labels') {
      v = (obj as { labels?: Record<string, string> }).labels?.[c.path.slice(1).join('.')];
    } else {
      for (const p of c.path) v = (v as Record<string, unknown> | undefined)?.[p];
    }
    const s = v === undefined || v === null ? undefined : String(v);
    return c.op === '=' ? s === c.value : s !== c.value;
  });
}
