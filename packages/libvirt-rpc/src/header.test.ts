import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeHeader,
  encodeHeader,
  encodePacket,
  packetProc,
  packetSerial,
  packetStatus,
  packetType,
} from './header.js';

describe('packet header', () => {
  it('round-trips every field', () => {
    fc.assert(
      fc.property(
        fc.record({
          prog: fc.integer({ min: 0, max: 0xffffffff }),
          vers: fc.integer({ min: 0, max: 0xffffffff }),
          proc: fc.integer({ min: -0x80000000, max: 0x7fffffff }),
          type: fc.integer({ min: 0, max: 6 }),
          serial: fc.integer({ min: 0, max: 0xffffffff }),
          status: fc.integer({ min: 0, max: 2 }),
        }),
        (h) => {
          const buf = Buffer.alloc(24);
          encodeHeader(buf, h);
          expect(decodeHeader(buf)).toEqual(h);
        },
      ),
    );
  });

  it('builds the CONNECT_OPEN packet byte for byte', () => {
    const payload = Buffer.from('000000010000000e71656d753a2f2f2f73797374656d000000000000', 'hex');
    const p = encodePacket({ prog: 0x20008086, vers: 1, proc: 1, type: 0, serial: 2, status: 0 }, payload);
    expect(p.toString('hex')).toBe(
      '00000038200080860000000100000001000000000000000200000000000000010000000e71656d753a2f2f2f73797374656d000000000000',
    );
    expect([packetProc(p), packetType(p), packetSerial(p), packetStatus(p)]).toEqual([1, 0, 2, 0]);
  });

  it('an empty payload gives a 28-byte packet', () => {
    const p = encodePacket({ prog: 0x6b656570, vers: 1, proc: 1, type: 2, serial: 0, status: 0 });
    expect(p.length).toBe(28);
    expect(p.readUInt32BE(0)).toBe(28);
  });

  it('rejects a buffer too short for a header', () => {
    expect(() => decodeHeader(Buffer.alloc(23))).toThrow(/header needs 24 bytes/);
  });
});
