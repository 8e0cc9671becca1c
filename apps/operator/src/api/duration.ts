/** A Kubernetes-style duration: `30s`, `1m30s`, `500ms`, `2h`. */
export const DURATION_RE = /^([0-9]+(ms|s|m|h))+$/;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds in a duration string; throws naming the value when it is not one. */
export function parseDuration(text: string): number {
  if (typeof text !== 'string' || !DURATION_RE.test(text)) {
    throw new TypeError(`invalid duration ${JSON.stringify(text)} (expected e.g. 30s, 1m30s, 500ms)`);
  }
  let total = 0;
  for (const m of text.matchAll(/([0-9]+)(ms|s|m|h)/g)) total += Number(m[1]) * (UNIT_MS[m[2]!] ?? 0);
  return total;
}
