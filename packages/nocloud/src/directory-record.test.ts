import { describe, expect, it } from 'vitest';
import { readRecord } from '../test/helpers/iso-reader.js';
import { packRecords, recordLength, writeDirectoryRecord } from './directory-record.js';

describe('recordLength', () => {
  it('pads an even identifier length so the system use area starts on an even offset', () => {
    expect(recordLength(1, 0)).toBe(34); // `.`: 33 + 1
    expect(recordLength(11, 0)).toBe(44); // USER_DAT.;1
    expect(recordLength(12, 0)).toBe(46); // 33 + 12 + 1 pad
  });

  it('pads the whole record to an even length', () => {
    expect(recordLength(11, 81)).toBe(126);
    expect(recordLength(1, 101)).toBe(136);
  });

  it('refuses records over 255 bytes', () => {
    expect(() => recordLength(11, 212)).toThrow(RangeError);
  });
});

describe('writeDirectoryRecord (ECMA-119 9.1)', () => {
  const date = new Date('2026-03-04T05:06:07Z');

  it('places every field at its offset', () => {
    const buf = new Uint8Array(300);
    const su = Uint8Array.from([0x52, 0x52, 5, 1, 0x81]);
    const n = writeDirectoryRecord(buf, 10, {
      identifier: new TextEncoder().encode('USER_DAT.;1'),
      flags: 0,
      systemUse: su,
      extent: 0x1234,
      size: 4096,
      date,
    });
    expect(n).toBe(50);
    expect(buf[10]).toBe(50);
    expect(buf[11]).toBe(0);
    const r = readRecord(buf, 10);
    expect(r.extent).toBe(0x1234);
    expect(r.size).toBe(4096);
    expect(r.date).toEqual([126, 3, 4, 5, 6, 7, 0]);
    expect(r.flags).toBe(0);
    expect([buf[38], buf[39], buf[40], buf[41]]).toEqual([1, 0, 0, 1]); // volume sequence number 1, both-endian
    expect(new TextDecoder().decode(r.identifier)).toBe('USER_DAT.;1');
    expect([...buf.subarray(54, 59)]).toEqual([...su]); // right after the 11-byte identifier, no pad
    expect(buf[59]).toBe(0); // trailing pad to an even length
  });

  it('inserts the pad byte after an even-length identifier', () => {
    const buf = new Uint8Array(300).fill(0);
    writeDirectoryRecord(buf, 0, {
      identifier: Uint8Array.of(0, 0x61, 0, 0x62),
      flags: 2,
      systemUse: Uint8Array.of(0x53, 0x50, 7, 1, 0xbe, 0xef, 0),
      extent: 1,
      size: 2048,
      date,
    });
    expect(buf[37]).toBe(0); // pad
    expect([buf[38], buf[39]]).toEqual([0x53, 0x50]);
    expect(buf[25]).toBe(2);
  });
});

describe('packRecords', () => {
  it('moves a record that would cross a block boundary to the next block', () => {
    const { offsets, blocks } = packRecords(Array(21).fill(100), 2048);
    expect(offsets[19]).toBe(1900);
    expect(offsets[20]).toBe(2048);
    expect(blocks).toBe(2);
  });

  it('uses at least one block and exactly fills one when records fit', () => {
    expect(packRecords([], 2048).blocks).toBe(1);
    expect(packRecords([1024, 1024], 2048)).toEqual({ offsets: [0, 1024], blocks: 1 });
  });
});
