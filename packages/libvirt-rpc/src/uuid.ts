import { UUID_BUFLEN } from './constants.js';
import { InvalidArgumentError } from './errors.js';

const UUID_RE = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** Formats 16 raw bytes as the canonical `8-4-4-4-12` lowercase text. */
export function uuidToString(bytes: Uint8Array): string {
  if (bytes.length !== UUID_BUFLEN)
    throw new InvalidArgumentError(`uuid must be ${UUID_BUFLEN} bytes, got ${bytes.length}`);
  const h = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Parses a UUID (text with or without dashes, or 16 raw bytes) into 16 bytes. */
export function uuidToBytes(uuid: string | Uint8Array): Buffer {
  if (uuid instanceof Uint8Array) {
    if (uuid.length !== UUID_BUFLEN) {
      throw new InvalidArgumentError(`uuid must be ${UUID_BUFLEN} bytes, got ${uuid.length}`);
    }
    return Buffer.from(uuid);
  }
  if (typeof uuid !== 'string' || !UUID_RE.test(uuid)) {
    throw new InvalidArgumentError(
      `invalid uuid ${JSON.stringify(uuid)}: expected 32 hex digits as 8-4-4-4-12`,
    );
  }
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}
