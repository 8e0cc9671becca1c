/**
 * JSON with every object's keys sorted, so two values that differ only in key order (a
 * reformatted file, the API server's own order) give the same text. The one canonical form of
 * the app: pool template hashes are digests of it and sit in every member's labels, so the
 * order (`localeCompare`, as those hashes were first made with) must not change: a changed
 * hash would recycle every member of every existing pool.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(
          Object.entries(x as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : x,
  );
}
