import { describe, expect, it } from 'vitest';
import { PATH_TABLE_SIZE, writeRootPathTable } from './path-table.js';

describe('root path table record (ECMA-119 9.4)', () => {
  it('writes the L-type record little-endian', () => {
    const b = new Uint8Array(PATH_TABLE_SIZE);
    writeRootPathTable(b, 0, 0x01020304, false);
    expect([...b]).toEqual([1, 0, 0x04, 0x03, 0x02, 0x01, 1, 0, 0, 0]);
  });

  it('writes the M-type record big-endian', () => {
    const b = new Uint8Array(PATH_TABLE_SIZE);
    writeRootPathTable(b, 0, 0x01020304, true);
    expect([...b]).toEqual([1, 0, 0x01, 0x02, 0x03, 0x04, 0, 1, 0, 0]);
  });
});
