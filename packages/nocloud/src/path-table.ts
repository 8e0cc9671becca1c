import { putBE16, putBE32, putLE16, putLE32 } from './bytes.js';

/**
 * ECMA-119 9.4 path table with the single root entry a flat seed needs: identifier length 1,
 * extended attribute length 0, the root's extent, parent directory number 1, identifier
 * 0x00 and a pad byte. `bigEndian` selects the M-type table, otherwise the L-type one.
 */
export const PATH_TABLE_SIZE = 10;

export function writeRootPathTable(
  buf: Uint8Array,
  off: number,
  rootExtent: number,
  bigEndian: boolean,
): void {
  buf[off] = 1;
  buf[off + 1] = 0;
  if (bigEndian) {
    putBE32(buf, off + 2, rootExtent);
    putBE16(buf, off + 6, 1);
  } else {
    putLE32(buf, off + 2, rootExtent);
    putLE16(buf, off + 6, 1);
  }
  buf[off + 8] = 0;
  buf[off + 9] = 0;
}
