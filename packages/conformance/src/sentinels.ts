import { randomUUID } from 'node:crypto';

/** A fresh marker embedded in a request's cloud-init; finding it anywhere it should not be is a leak. */
export function newSentinel(label: string): string {
  return `${label}-${randomUUID().replaceAll('-', '')}`;
}

/** The cloud-init document every kit request carries: realistic, and the sentinel inside it. */
export function cloudInitWith(sentinel: string): string {
  return [
    '#cloud-config',
    'write_files:',
    '  - path: /etc/proxy/credentials',
    `    content: ${sentinel}`,
    'runcmd:',
    '  - [systemctl, restart, squid]',
    '',
  ].join('\n');
}

/** The forms a leaked secret takes in text: as is, base64 and hex. */
export function leakForms(secret: string): string[] {
  const buf = Buffer.from(secret);
  return [secret, buf.toString('base64'), buf.toString('hex')];
}

function serialise(value: unknown, seen = new WeakSet<object>(), depth = 0): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value !== 'object') return String(value);
  if (seen.has(value) || depth > 8) return '';
  seen.add(value);
  const parts: string[] = [];
  if (value instanceof Error) {
    parts.push(value.name, value.message, value.stack ?? '');
    const cause = (value as { cause?: unknown }).cause;
    if (cause !== undefined) parts.push(serialise(cause, seen, depth + 1));
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    try {
      parts.push(JSON.stringify(value));
    } catch {
      // A value whose toJSON throws cannot be printed by a JSON logger either.
    }
  }
  if (value instanceof Uint8Array) parts.push(Buffer.from(value).toString('utf8'));
  for (const key of Object.keys(value)) {
    parts.push(key, serialise((value as Record<string, unknown>)[key], seen, depth + 1));
  }
  return parts.join('\n');
}

/** Everything a log sink or an error reporter could print about `value`, as one string. */
export function printable(value: unknown): string {
  return serialise(value);
}

/** The first secret (by label) whose any form occurs in `text`, or undefined. */
export function findLeak(text: string, secrets: ReadonlyMap<string, string>): string | undefined {
  for (const [label, secret] of secrets) {
    if (secret.length < 6) continue;
    for (const form of leakForms(secret)) if (text.includes(form)) return label;
  }
  return undefined;
}
