import { createHash } from 'node:crypto';

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value instanceof Date) return value.toISOString();
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = canonical((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

/**
 * A one-way digest of a provider entry (name, type, block). Key order does not matter, so a
 * reformatted file keeps its fingerprints; any value change makes a new one.
 */
export function entryFingerprint(entry: {
  name: string;
  type: string;
  config: unknown;
  module?: string;
}): string {
  // `module` only when set, so a bundled entry keeps the fingerprint it had before modules existed.
  const text = JSON.stringify(
    canonical({
      name: entry.name,
      type: entry.type,
      config: entry.config,
      ...(entry.module !== undefined ? { module: entry.module } : {}),
    }),
  );
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
