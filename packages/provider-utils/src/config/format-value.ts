/** The longest rendering of a bad value kept in a message; config values are short, documents are not. */
const MAX_VALUE_CHARS = 80;

/**
 * Renders a bad config value for an error message: strings quoted, objects by their keys,
 * everything else as JSON, cut to a readable length. Config values are paths, names and numbers,
 * never secrets (secrets live in the files the config points at), so quoting them is safe.
 */
export function formatValue(value: unknown): string {
  let text: string;
  if (value === undefined) text = 'undefined';
  else if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    text = String(value);
  } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    // An object in the wrong place is shown by its keys only: a block pasted under the wrong
    // field (or a credential inlined by mistake) must not end up in a log with its contents.
    text = `{${Object.keys(value).join(', ')}}`;
  } else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 3)}...` : text;
}

/** `null`, `array`, or the `typeof` name, for "expected X, got Y" messages. */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** `providers[2].kvm2.hosts[0].bridge` from `['providers', 2, 'kvm2', 'hosts', 0, 'bridge']`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const s = String(seg);
      // Keys that would be ambiguous in dotted form (catalogue keys may contain dots) are bracketed.
      out += /^[A-Za-z_][A-Za-z0-9_-]*$/.test(s) ? (out ? `.${s}` : s) : `[${JSON.stringify(s)}]`;
    }
  }
  return out;
}
