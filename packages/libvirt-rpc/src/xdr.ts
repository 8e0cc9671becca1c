import { STRING_MAX } from './constants.js';
import { XdrError } from './errors.js';

const INT_MIN = -0x80000000;
const INT_MAX = 0x7fffffff;
const UINT_MAX = 0xffffffff;
const HYPER_MIN = -(2n ** 63n);
const HYPER_MAX = 2n ** 63n - 1n;
const UHYPER_MAX = 2n ** 64n - 1n;

function pad4(n: number): number {
  return (4 - (n & 3)) & 3;
}

function describe(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return String(value);
}

/** Appends XDR (RFC 4506) values to a growing buffer. */
export class XdrWriter {
  private buf: Buffer;
  private pos = 0;

  constructor(initialSize = 256) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  get length(): number {
    return this.pos;
  }

  private ensure(extra: number): void {
    const need = this.pos + extra;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** Reserves `n` bytes (e.g. a packet header written later with `patchUint`). */
  skip(n: number): this {
    this.ensure(n);
    this.pos += n;
    return this;
  }

  patchUint(offset: number, value: number): void {
    this.buf.writeUInt32BE(value, offset);
  }

  patchInt(offset: number, value: number): void {
    this.buf.writeInt32BE(value, offset);
  }

  int(value: number, field = 'int'): this {
    if (!Number.isInteger(value) || value < INT_MIN || value > INT_MAX) {
      throw new XdrError(`${field}: ${describe(value)} is not a 32-bit signed integer`);
    }
    this.ensure(4);
    this.buf.writeInt32BE(value, this.pos);
    this.pos += 4;
    return this;
  }

  uint(value: number, field = 'unsigned int'): this {
    if (!Number.isInteger(value) || value < 0 || value > UINT_MAX) {
      throw new XdrError(`${field}: ${describe(value)} is not a 32-bit unsigned integer`);
    }
    this.ensure(4);
    this.buf.writeUInt32BE(value, this.pos);
    this.pos += 4;
    return this;
  }

  /** Enums share the int wire form. */
  enum(value: number, field = 'enum'): this {
    return this.int(value, field);
  }

  bool(value: boolean, field = 'bool'): this {
    if (typeof value !== 'boolean') throw new XdrError(`${field}: ${describe(value)} is not a boolean`);
    return this.uint(value ? 1 : 0, field);
  }

  hyper(value: bigint | number, field = 'hyper'): this {
    const v = toBigInt(value, field);
    if (v < HYPER_MIN || v > HYPER_MAX)
      throw new XdrError(`${field}: ${describe(value)} is not a 64-bit signed integer`);
    this.ensure(8);
    this.buf.writeBigInt64BE(v, this.pos);
    this.pos += 8;
    return this;
  }

  uhyper(value: bigint | number, field = 'unsigned hyper'): this {
    const v = toBigInt(value, field);
    if (v < 0n || v > UHYPER_MAX)
      throw new XdrError(`${field}: ${describe(value)} is not a 64-bit unsigned integer`);
    this.ensure(8);
    this.buf.writeBigUInt64BE(v, this.pos);
    this.pos += 8;
    return this;
  }

  double(value: number, field = 'double'): this {
    if (typeof value !== 'number') throw new XdrError(`${field}: ${describe(value)} is not a number`);
    this.ensure(8);
    this.buf.writeDoubleBE(value, this.pos);
    this.pos += 8;
    return this;
  }

  /** `string s<max>`: length, UTF-8 bytes, zero padding. */
  string(value: string, max = STRING_MAX, field = 'string'): this {
    if (typeof value !== 'string') throw new XdrError(`${field}: ${describe(value)} is not a string`);
    // Worst case 3 bytes per UTF-16 unit; write first, then check and fill in the length.
    this.ensure(4 + value.length * 3 + 3);
    const start = this.pos + 4;
    const n = value.length === 0 ? 0 : this.buf.write(value, start, 'utf8');
    if (n > max) throw new XdrError(`${field}: string of ${n} bytes exceeds the maximum of ${max}`);
    this.buf.writeUInt32BE(n, this.pos);
    const p = pad4(n);
    for (let i = 0; i < p; i++) this.buf[start + n + i] = 0;
    this.pos = start + n + p;
    return this;
  }

  /** `T *`: presence flag, then the value when present. */
  optional<T>(value: T | null | undefined, write: (w: this, v: T) => void): this {
    if (value === null || value === undefined) return this.uint(0);
    this.uint(1);
    write(this, value);
    return this;
  }

  /** remote_string: an optional string. */
  optionalString(value: string | null | undefined, max = STRING_MAX, field = 'string'): this {
    return this.optional(value, (w, v) => w.string(v, max, field));
  }

  /** `opaque x[n]`: exactly n bytes, padded, no length prefix. */
  fixedOpaque(value: Uint8Array, n: number, field = 'opaque'): this {
    if (!(value instanceof Uint8Array))
      throw new XdrError(`${field}: ${describe(value)} is not a byte array`);
    if (value.length !== n) throw new XdrError(`${field}: expected exactly ${n} bytes, got ${value.length}`);
    const p = pad4(n);
    this.ensure(n + p);
    this.buf.set(value, this.pos);
    for (let i = 0; i < p; i++) this.buf[this.pos + n + i] = 0;
    this.pos += n + p;
    return this;
  }

  /** `opaque x<max>`: length, bytes, padding. */
  varOpaque(value: Uint8Array, max: number, field = 'opaque'): this {
    if (!(value instanceof Uint8Array))
      throw new XdrError(`${field}: ${describe(value)} is not a byte array`);
    if (value.length > max)
      throw new XdrError(`${field}: ${value.length} bytes exceed the maximum of ${max}`);
    this.uint(value.length);
    return this.fixedOpaque(value, value.length, field);
  }

  /** `T x<max>`: count, then each element. */
  array<T>(items: readonly T[], max: number, write: (w: this, v: T) => void, field = 'array'): this {
    if (!Array.isArray(items)) throw new XdrError(`${field}: ${describe(items)} is not an array`);
    if (items.length > max)
      throw new XdrError(`${field}: ${items.length} elements exceed the maximum of ${max}`);
    this.uint(items.length);
    for (const item of items) write(this, item);
    return this;
  }

  /**
   * A UUID in text form (`8-4-4-4-12` hex) as 16 raw bytes, decoded straight into the buffer:
   * handles carry text UUIDs and this runs on every call that names a domain or pool.
   * Returns false (writing nothing) when the text is not a UUID.
   */
  uuidText(value: string): boolean {
    if (typeof value !== 'string' || value.length !== 36) return false;
    if (value[8] !== '-' || value[13] !== '-' || value[18] !== '-' || value[23] !== '-') return false;
    this.ensure(16);
    const b = this.buf;
    const p = this.pos;
    const ok =
      b.write(value.slice(0, 8), p, 'hex') === 4 &&
      b.write(value.slice(9, 13), p + 4, 'hex') === 2 &&
      b.write(value.slice(14, 18), p + 6, 'hex') === 2 &&
      b.write(value.slice(19, 23), p + 8, 'hex') === 2 &&
      b.write(value.slice(24, 36), p + 10, 'hex') === 6;
    if (ok) this.pos += 16;
    return ok;
  }

  /** Raw bytes with no framing at all (stream payloads). */
  raw(value: Uint8Array): this {
    this.ensure(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
    return this;
  }

  /** The encoded bytes (a view on the internal buffer; the writer must not be reused). */
  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

function toBigInt(value: bigint | number, field: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  throw new XdrError(`${field}: ${describe(value)} is not an integer (use a bigint beyond 2^53)`);
}

/** Reads XDR values from a buffer region. */
export class XdrReader {
  private pos: number;

  constructor(
    private readonly buf: Buffer,
    start = 0,
    private readonly end = buf.length,
  ) {
    this.pos = start;
  }

  get offset(): number {
    return this.pos;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  private need(n: number, what: string): void {
    if (this.end - this.pos < n) {
      throw new XdrError(
        `truncated XDR data: ${what} needs ${n} bytes at offset ${this.pos}, ${this.end - this.pos} left`,
      );
    }
  }

  int(): number {
    this.need(4, 'int');
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  uint(): number {
    this.need(4, 'unsigned int');
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  enum(): number {
    return this.int();
  }

  /** Any non-zero value is true, as rpcgen's decoder does. */
  bool(): boolean {
    return this.uint() !== 0;
  }

  hyper(): bigint {
    this.need(8, 'hyper');
    const v = this.buf.readBigInt64BE(this.pos);
    this.pos += 8;
    return v;
  }

  uhyper(): bigint {
    this.need(8, 'unsigned hyper');
    const v = this.buf.readBigUInt64BE(this.pos);
    this.pos += 8;
    return v;
  }

  double(): number {
    this.need(8, 'double');
    const v = this.buf.readDoubleBE(this.pos);
    this.pos += 8;
    return v;
  }

  string(max = STRING_MAX): string {
    const n = this.uint();
    if (n > max) throw new XdrError(`string length ${n} exceeds the maximum of ${max}`);
    const total = n + pad4(n);
    this.need(total, 'string');
    const s = n === 0 ? '' : this.buf.toString('utf8', this.pos, this.pos + n);
    this.pos += total;
    return s;
  }

  optional<T>(read: (r: this) => T): T | null {
    const flag = this.uint();
    if (flag === 0) return null;
    return read(this);
  }

  optionalString(max = STRING_MAX): string | null {
    return this.optional((r) => r.string(max));
  }

  /** A copy of n fixed bytes (copied so the packet buffer is not retained). */
  fixedOpaque(n: number): Buffer {
    const total = n + pad4(n);
    this.need(total, `opaque[${n}]`);
    const out = Buffer.from(this.buf.subarray(this.pos, this.pos + n));
    this.pos += total;
    return out;
  }

  varOpaque(max: number): Buffer {
    const n = this.uint();
    if (n > max) throw new XdrError(`opaque length ${n} exceeds the maximum of ${max}`);
    return this.fixedOpaque(n);
  }

  array<T>(max: number, read: (r: this) => T): T[] {
    const n = this.uint();
    if (n > max) throw new XdrError(`array length ${n} exceeds the maximum of ${max}`);
    // Each element takes at least 4 bytes, so a huge count in a short packet is rejected early.
    if (n * 4 > this.remaining) this.need(n * 4, `array of ${n}`);
    const out = new Array<T>(n);
    for (let i = 0; i < n; i++) out[i] = read(this);
    return out;
  }

  /** Throws when bytes are left over (a layout mismatch). */
  expectEnd(what = 'value'): void {
    if (this.pos !== this.end) {
      throw new XdrError(`${this.end - this.pos} unexpected trailing bytes after decoding ${what}`);
    }
  }
}
