/**
 * Compute's rules for resource labels, so the fake can only ever hold labels the real API would
 * accept: at most 64 labels; keys 1-63 characters starting with a lowercase letter; values 0-63
 * characters; both only lowercase letters, digits, `_` and `-`. (Compute also allows
 * international lowercase letters; nothing here writes any.)
 */
const KEY_RE = /^[a-z][a-z0-9_-]{0,62}$/;
const VALUE_RE = /^[a-z0-9_-]{0,63}$/;
export const MAX_LABELS = 64;

/** Why Compute would refuse these labels, or undefined when it would accept them. */
export function labelProblem(labels: unknown): string | undefined {
  if (labels === undefined) return undefined;
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels)) {
    return `labels must be a map of strings, got ${JSON.stringify(labels)}`;
  }
  const entries = Object.entries(labels);
  if (entries.length > MAX_LABELS) return `${entries.length} labels; at most ${MAX_LABELS} are allowed`;
  for (const [key, value] of entries) {
    if (!KEY_RE.test(key)) return `label key ${JSON.stringify(key)} is not a valid label key`;
    if (typeof value !== 'string' || !VALUE_RE.test(value)) {
      return `label ${key} has value ${JSON.stringify(value)}, which is not a valid label value`;
    }
  }
  return undefined;
}
