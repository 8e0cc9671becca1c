import { putBE32, putBoth16, putBoth32, putLE32, putPaddedAscii, putPaddedUcs2 } from './bytes.js';
import { BLOCK_SIZE } from './constants.js';
import { type DirectoryRecord, writeDirectoryRecord } from './directory-record.js';
import { putVolumeDate } from './iso-date.js';

export interface VolumeDescriptorFields {
  readonly volumeId: string;
  readonly volumeBlocks: number;
  readonly pathTableSize: number;
  readonly pathTableL: number;
  readonly pathTableM: number;
  readonly root: DirectoryRecord;
  readonly date: Date;
}

const STANDARD_ID = 'CD001';
/** Joliet UCS-2 level 3, the escape sequence `%/E` in the supplementary descriptor. */
export const JOLIET_ESCAPE = [0x25, 0x2f, 0x45] as const;

/**
 * ECMA-119 8.4 primary (type 1) or Joliet supplementary (type 2) volume descriptor at `off`.
 * They share a layout; Joliet stores its identifiers as UCS-2 big-endian and adds the escape
 * sequence that names the character set.
 */
export function writeVolumeDescriptor(
  buf: Uint8Array,
  off: number,
  kind: 'primary' | 'joliet',
  f: VolumeDescriptorFields,
): void {
  const joliet = kind === 'joliet';
  const text = (at: number, width: number, value: string) =>
    joliet ? putPaddedUcs2(buf, off + at, width, value) : putPaddedAscii(buf, off + at, width, value);
  buf[off] = joliet ? 2 : 1;
  putPaddedAscii(buf, off + 1, 5, STANDARD_ID);
  buf[off + 6] = 1;
  text(8, 32, ''); // system identifier
  text(40, 32, f.volumeId);
  putBoth32(buf, off + 80, f.volumeBlocks);
  if (joliet) buf.set(JOLIET_ESCAPE, off + 88);
  putBoth16(buf, off + 120, 1); // volume set size
  putBoth16(buf, off + 124, 1); // volume sequence number
  putBoth16(buf, off + 128, BLOCK_SIZE);
  putBoth32(buf, off + 132, f.pathTableSize);
  putLE32(buf, off + 140, f.pathTableL);
  putBE32(buf, off + 148, f.pathTableM);
  writeDirectoryRecord(buf, off + 156, f.root);
  text(190, 128, ''); // volume set
  text(318, 128, ''); // publisher
  text(446, 128, ''); // data preparer
  text(574, 128, ''); // application
  text(702, 37, ''); // copyright file
  text(739, 37, ''); // abstract file
  text(776, 37, ''); // bibliographic file
  putVolumeDate(buf, off + 813, f.date); // creation
  putVolumeDate(buf, off + 830, f.date); // modification
  putVolumeDate(buf, off + 847, null); // expiration
  putVolumeDate(buf, off + 864, null); // effective
  buf[off + 881] = 1; // file structure version
}

/** ECMA-119 8.3 volume descriptor set terminator (type 255). */
export function writeTerminator(buf: Uint8Array, off: number): void {
  buf[off] = 255;
  putPaddedAscii(buf, off + 1, 5, STANDARD_ID);
  buf[off + 6] = 1;
}
