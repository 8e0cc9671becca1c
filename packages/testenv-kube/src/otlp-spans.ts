/** One span as the collector's file exporter stored it (OTLP JSON), flattened. */
export interface StoredSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  service: string;
  attributes: Record<string, string | number | boolean>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: OtlpAttribute[];
}
interface OtlpLine {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

function otlpValue(v: OtlpValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return '';
}

function attributes(list: OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, otlpValue(a.value)]));
}

/** Every span in the file exporter's output: one OTLP JSON document per line. */
export function parseOtlpJsonLines(text: string): StoredSpan[] {
  const out: StoredSpan[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const doc = JSON.parse(line) as OtlpLine;
    for (const rs of doc.resourceSpans ?? []) {
      const service = String(attributes(rs.resource?.attributes)['service.name'] ?? '');
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          out.push({
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId ?? '',
            name: s.name,
            service,
            attributes: attributes(s.attributes),
          });
        }
      }
    }
  }
  return out;
}

/**
 * The first chain of spans whose names match `names` in order, each the parent of the next, all
 * in one trace (a name ending in `*` matches by prefix). `where` filters the first span.
 */
export function findSpanChain(
  spans: readonly StoredSpan[],
  names: readonly string[],
  where: (root: StoredSpan) => boolean = () => true,
): StoredSpan[] | undefined {
  const matches = (s: StoredSpan, name: string) =>
    name.endsWith('*') ? s.name.startsWith(name.slice(0, -1)) : s.name === name;
  const children = new Map<string, StoredSpan[]>();
  for (const s of spans) {
    const key = `${s.traceId}/${s.parentSpanId}`;
    children.set(key, [...(children.get(key) ?? []), s]);
  }
  const extend = (chain: StoredSpan[]): StoredSpan[] | undefined => {
    if (chain.length === names.length) return chain;
    const last = chain[chain.length - 1] as StoredSpan;
    for (const c of children.get(`${last.traceId}/${last.spanId}`) ?? []) {
      if (!matches(c, names[chain.length] as string)) continue;
      const found = extend([...chain, c]);
      if (found) return found;
    }
    return undefined;
  };
  for (const s of spans) {
    if (!matches(s, names[0] as string) || !where(s)) continue;
    const found = extend([s]);
    if (found) return found;
  }
  return undefined;
}

/** The spans below `root` (its descendants), in the same trace. */
export function descendantsOf(spans: readonly StoredSpan[], root: StoredSpan): StoredSpan[] {
  const out: StoredSpan[] = [];
  const stack = [root.spanId];
  while (stack.length) {
    const id = stack.pop() as string;
    for (const s of spans)
      if (s.traceId === root.traceId && s.parentSpanId === id) {
        out.push(s);
        stack.push(s.spanId);
      }
  }
  return out;
}
