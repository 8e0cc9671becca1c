import { describe, expect, it } from 'vitest';
import { ascii, putBoth16, putBoth32, putPaddedAscii, putPaddedUcs2, ucs2be } from './bytes.js';

describe('both-endian numbers (ECMA-119 7.2.3, 7.3.3)', () => {
  it('writes a 32-bit value little-endian then big-endian', () => {
    const b = new Uint8Array(8);
    putBoth32(b, 0, 0x12345678);
    expect([...b]).toEqual([0x78, 0x56, 0x34, 0x12, 0x12, 0x34, 0x56, 0x78]);
  });

  it('writes a 16-bit value little-endian then big-endian', () => {
    const b = new Uint8Array(4);
    putBoth16(b, 0, 0x0800);
    expect([...b]).toEqual([0x00, 0x08, 0x08, 0x00]);
  });

  it('handles values with the top bit set', () => {
    const b = new Uint8Array(8);
    putBoth32(b, 0, 0xfffffffe);
    expect([...b]).toEqual([0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe]);
  });
});

describe('fixed-width text fields', () => {
  it('pads ASCII with spaces and truncates to the width', () => {
    const b = new Uint8Array(8).fill(0xaa);
    putPaddedAscii(b, 1, 6, 'cidata-long');
    expect([...b]).toEqual([0xaa, ...ascii('cidata'), 0xaa]);
    putPaddedAscii(b, 1, 6, 'ab');
    expect(String.fromCharCode(...b.subarray(1, 7))).toBe('ab    ');
  });

  it('pads UCS-2 big-endian with UCS-2 spaces and zeroes the odd last byte', () => {
    const b = new Uint8Array(7).fill(0xaa);
    putPaddedUcs2(b, 0, 7, 'ab');
    expect([...b]).toEqual([0x00, 0x61, 0x00, 0x62, 0x00, 0x20, 0x00]);
  });

  it('encodes UCS-2 big-endian code units', () => {
    expect([...ucs2be('a-é')]).toEqual([0x00, 0x61, 0x00, 0x2d, 0x00, 0xe9]);
  });
});
