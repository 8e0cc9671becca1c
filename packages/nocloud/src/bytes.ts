// Numeric and text field writers in the encodings ECMA-119 uses. Every multi-byte number in
// a volume descriptor or directory record is stored "both-endian": little-endian first, then
// the same value big-endian, so readers on either byte order can take it without swapping.

export function putU8(buf: Uint8Array, off: number, value: number): void {
  buf[off] = value & 0xff;
}

export function putLE16(buf: Uint8Array, off: number, value: number): void {
  buf[off] = value & 0xff;
  buf[off + 1] = (value >>> 8) & 0xff;
}

export function putBE16(buf: Uint8Array, off: number, value: number): void {
  buf[off] = (value >>> 8) & 0xff;
  buf[off + 1] = value & 0xff;
}

export function putLE32(buf: Uint8Array, off: number, value: number): void {
  buf[off] = value & 0xff;
  buf[off + 1] = (value >>> 8) & 0xff;
  buf[off + 2] = (value >>> 16) & 0xff;
  buf[off + 3] = (value >>> 24) & 0xff;
}

export function putBE32(buf: Uint8Array, off: number, value: number): void {
  buf[off] = (value >>> 24) & 0xff;
  buf[off + 1] = (value >>> 16) & 0xff;
  buf[off + 2] = (value >>> 8) & 0xff;
  buf[off + 3] = value & 0xff;
}

/** ECMA-119 7.2.3: 16-bit both-byte-order, 4 bytes. */
export function putBoth16(buf: Uint8Array, off: number, value: number): void {
  putLE16(buf, off, value);
  putBE16(buf, off + 2, value);
}

/** ECMA-119 7.3.3: 32-bit both-byte-order, 8 bytes. */
export function putBoth32(buf: Uint8Array, off: number, value: number): void {
  putLE32(buf, off, value);
  putBE32(buf, off + 4, value);
}

/** Writes an ASCII string into a fixed-width field padded with spaces (a/d-character fields). */
export function putPaddedAscii(buf: Uint8Array, off: number, width: number, text: string): void {
  for (let i = 0; i < width; i++) buf[off + i] = i < text.length ? text.charCodeAt(i) & 0x7f : 0x20;
}

/** Writes UCS-2 big-endian text into a fixed-width Joliet field, padded with UCS-2 spaces. */
export function putPaddedUcs2(buf: Uint8Array, off: number, width: number, text: string): void {
  const chars = Math.floor(width / 2);
  for (let i = 0; i < chars; i++) putBE16(buf, off + 2 * i, i < text.length ? text.charCodeAt(i) : 0x20);
  // An odd-width field (the 37-byte file identifiers) keeps its last byte zero.
  if (width % 2 === 1) buf[off + width - 1] = 0;
}

export function ascii(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0x7f;
  return out;
}

export function ucs2be(text: string): Uint8Array {
  const out = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) putBE16(out, 2 * i, text.charCodeAt(i));
  return out;
}
