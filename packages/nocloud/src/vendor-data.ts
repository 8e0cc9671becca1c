import { describeValue, SeedInputError } from './errors.js';
import type { SeedContent } from './seed-input.js';

const encoder = new TextEncoder();
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Joins the default vendor-data script with the operator's own vendor-data so that cloud-init
 * runs both. Without `extra` (undefined, null or empty) the script is returned unchanged.
 * Otherwise the result is a MIME multipart/mixed document (a string): the script first, then
 * `extra`.
 *
 * Parts are base64-encoded, so any bytes survive and no content can collide with the
 * boundary. `extra` is labelled text/plain, which makes cloud-init pick the handler from its
 * first line (`#!`, `#cloud-config`, ...); gzip data is labelled application/gzip, which
 * cloud-init decompresses first. An `extra` that is itself a MIME document (cloud-init's own
 * test: `MIME-Version:` within the first 4096 bytes) is nested as it is, and cloud-init walks
 * into its parts.
 */
export function composeVendorData(script: SeedContent, extra?: SeedContent | null): SeedContent {
  const scriptBytes = contentBytes('script', script);
  if (extra === undefined || extra === null) return script;
  const extraBytes = contentBytes('extra', extra);
  if (extraBytes.length === 0) return script;

  const parts = [
    part('text/x-shellscript; charset="utf-8"', 'vendor-data-script', scriptBytes),
    extraPart(extraBytes),
  ];
  const boundary = chooseBoundary(parts);
  let doc = `Content-Type: multipart/mixed; boundary="${boundary}"\nMIME-Version: 1.0\n\n`;
  for (const p of parts) doc += `--${boundary}\n${p}\n`;
  return `${doc}--${boundary}--\n`;
}

function contentBytes(field: string, value: unknown): Uint8Array {
  if (typeof value === 'string') return encoder.encode(value);
  if (value instanceof Uint8Array) return value;
  throw new SeedInputError(field, `${field} must be a string or a Uint8Array, got ${describeValue(value)}`);
}

function extraPart(bytes: Uint8Array): string {
  const gzip = bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
  const nested = asMimeDocument(gzip ? gunzipOrNull(bytes) : bytes);
  if (nested !== null) return nested.endsWith('\n') ? nested.slice(0, -1) : nested;
  return part(gzip ? 'application/gzip' : 'text/plain; charset="utf-8"', 'vendor-data', bytes);
}

function gunzipOrNull(bytes: Uint8Array): Uint8Array | null {
  try {
    // node:zlib (and node:stream with it) is fetched on use, not with the package.
    return new Uint8Array(process.getBuiltinModule('node:zlib').gunzipSync(bytes));
  } catch {
    return null;
  }
}

/**
 * Returns the text when cloud-init would parse `bytes` as MIME and it starts with a header
 * line (so it can stand as a body part of ours), otherwise null.
 */
function asMimeDocument(bytes: Uint8Array | null): string | null {
  if (bytes === null) return null;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return null;
  }
  const head = text.slice(0, 4096).toLowerCase();
  if (!head.includes('mime-version:') || !/^[!-9;-~]+:/.test(text)) return null;
  return text.replace(/\r\n/g, '\n');
}

function part(contentType: string, filename: string, bytes: Uint8Array): string {
  const b64 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 76) lines.push(b64.slice(i, i + 76));
  return (
    `Content-Type: ${contentType}\nMIME-Version: 1.0\nContent-Transfer-Encoding: base64\n` +
    `Content-Disposition: attachment; filename="${filename}"\n\n${lines.join('\n')}`
  );
}

/** A boundary derived from the content (so output is deterministic) that occurs in no part. */
function chooseBoundary(parts: readonly string[]): string {
  const hash = process.getBuiltinModule('node:crypto').createHash('sha256');
  for (const p of parts) hash.update(p);
  const base = `nocloud-${hash.digest('hex').slice(0, 24)}`;
  for (let n = 0; ; n++) {
    const candidate = n === 0 ? base : `${base}-${n}`;
    if (!parts.some((p) => p.includes(`--${candidate}`))) return candidate;
  }
}
