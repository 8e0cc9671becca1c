/** SHA-256 in hex; node:crypto is fetched on use, so importing the package loads no crypto. */
const sha256 = (s: string) =>
  process.getBuiltinModule('node:crypto').createHash('sha256').update(s).digest('hex');

/**
 * Makes any string a valid GCE label value: lowercase, only `[a-z0-9_-]`, at most 63
 * characters. Values that had to change get a short hash suffix so two different inputs do not
 * collapse onto the same label.
 */
export function labelValue(input: string): string {
  const lowered = input.toLowerCase();
  const cleaned = lowered.replace(/[^a-z0-9_-]/g, '-');
  if (cleaned === input && cleaned.length <= 63) return cleaned;
  const hash = sha256(input).slice(0, 8);
  return `${cleaned.slice(0, 63 - 9)}-${hash}`;
}

/**
 * A UUID-shaped string derived from `parts`: the same parts always give the same ID. Compute
 * keeps a request ID for a while and answers a repeated insert with the original operation, so a
 * retried Create never makes a second machine.
 */
export function derivedRequestId(...parts: string[]): string {
  const h = sha256(parts.join('\u0000'));
  // Version 5-style layout (variant bits set) so strict UUID validators accept it.
  const variant = ((Number.parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
