import { putBoth16, putBoth32 } from './bytes.js';
import { putRecordingDate } from './iso-date.js';

/** One ECMA-119 9.1 directory record, before it is placed. */
export interface DirectoryRecord {
  /** File identifier bytes: 0x00 for `.`, 0x01 for `..`, otherwise the name. */
  readonly identifier: Uint8Array;
  /** ECMA-119 9.1.6 flags (0x02 = directory). */
  readonly flags: number;
  /** SUSP entries (Rock Ridge); empty in the Joliet tree. */
  readonly systemUse: Uint8Array;
  readonly extent: number;
  readonly size: number;
  readonly date: Date;
}

const FIXED_PART = 33;
const MAX_RECORD = 255;

/**
 * Length of a record: the fixed 33 bytes, the identifier, a pad byte when the identifier
 * length is even (so the system use area starts on an even offset), the system use area,
 * and a trailing pad so the whole record length is even.
 */
export function recordLength(identifierLength: number, systemUseLength: number): number {
  let length = FIXED_PART + identifierLength;
  if (length % 2 === 1) length += 1;
  length += systemUseLength;
  if (length % 2 === 1) length += 1;
  if (length > MAX_RECORD) {
    throw new RangeError(`directory record of ${length} bytes exceeds the ${MAX_RECORD}-byte limit`);
  }
  return length;
}

/** Writes `record` at `off` in `buf` (which must be zeroed there) and returns its length. */
export function writeDirectoryRecord(buf: Uint8Array, off: number, record: DirectoryRecord): number {
  const length = recordLength(record.identifier.length, record.systemUse.length);
  buf[off] = length;
  buf[off + 1] = 0; // extended attribute record length
  putBoth32(buf, off + 2, record.extent);
  putBoth32(buf, off + 10, record.size);
  putRecordingDate(buf, off + 18, record.date);
  buf[off + 25] = record.flags;
  buf[off + 26] = 0; // file unit size (not interleaved)
  buf[off + 27] = 0; // interleave gap
  putBoth16(buf, off + 28, 1); // volume sequence number
  buf[off + 32] = record.identifier.length;
  buf.set(record.identifier, off + FIXED_PART);
  let su = off + FIXED_PART + record.identifier.length;
  if (su % 2 !== off % 2) su += 1;
  buf.set(record.systemUse, su);
  return length;
}

/**
 * Places records of the given lengths in consecutive blocks: a record never crosses a
 * block boundary (ECMA-119 6.8.1.1), the unused tail of a block stays zero. Returns each
 * record's offset in the directory and the directory's size in whole blocks.
 */
export function packRecords(
  lengths: readonly number[],
  blockSize: number,
): { offsets: number[]; blocks: number } {
  const offsets: number[] = [];
  let off = 0;
  for (const length of lengths) {
    const inBlock = off % blockSize;
    if (inBlock + length > blockSize) off += blockSize - inBlock;
    offsets.push(off);
    off += length;
  }
  return { offsets, blocks: Math.max(1, Math.ceil(off / blockSize)) };
}
