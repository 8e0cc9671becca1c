import { describe, expect, it } from 'vitest';
import { both32, text } from '../test/helpers/iso-reader.js';
import {
  ceEntry,
  erEntry,
  nmEntry,
  pxEntry,
  RR_NM,
  RR_PX,
  RR_TF,
  rrEntry,
  spEntry,
  tfEntry,
} from './rock-ridge.js';

const sig = (e: Uint8Array) => text(e, 0, 2);

describe('SUSP entries', () => {
  it('SP carries the check bytes BE EF and skips nothing', () => {
    expect([...spEntry()]).toEqual([0x53, 0x50, 7, 1, 0xbe, 0xef, 0]);
  });

  it('CE points at a block, an offset and a length, each both-endian', () => {
    const ce = ceEntry(29, 0, 237);
    expect(sig(ce)).toBe('CE');
    expect(ce.length).toBe(28);
    expect(ce[2]).toBe(28);
    expect([both32(ce, 4), both32(ce, 12), both32(ce, 20)]).toEqual([29, 0, 237]);
  });

  it('ER declares RRIP_1991A with the texts RRIP 1.09 prescribes', () => {
    const er = erEntry();
    expect(sig(er)).toBe('ER');
    const [lenId, lenDes, lenSrc, version] = [er[4]!, er[5]!, er[6]!, er[7]!];
    expect(er[2]).toBe(er.length);
    expect(er.length).toBe(8 + lenId + lenDes + lenSrc);
    expect(version).toBe(1);
    expect(text(er, 8, lenId)).toBe('RRIP_1991A');
    expect(text(er, 8 + lenId, lenDes)).toMatch(/^THE ROCK RIDGE INTERCHANGE PROTOCOL/);
    expect(text(er, 8 + lenId + lenDes, lenSrc)).toMatch(/^PLEASE CONTACT DISC PUBLISHER/);
  });
});

describe('Rock Ridge entries', () => {
  it('RR carries the flags of the entries present', () => {
    expect([...rrEntry(RR_PX | RR_TF | RR_NM)]).toEqual([0x52, 0x52, 5, 1, 0x89]);
  });

  it('PX is the 36-byte RRIP 1.09 form: mode, links, uid, gid', () => {
    const px = pxEntry(0o100444, 1);
    expect(sig(px)).toBe('PX');
    expect(px.length).toBe(36);
    expect(px[2]).toBe(36);
    expect([both32(px, 4), both32(px, 12), both32(px, 20), both32(px, 28)]).toEqual([0o100444, 1, 0, 0]);
  });

  it('TF records modify, access and attribute times in the short form', () => {
    const tf = tfEntry(new Date('2026-03-04T05:06:07Z'));
    expect(sig(tf)).toBe('TF');
    expect(tf.length).toBe(26);
    expect(tf[4]).toBe(0x0e);
    for (let i = 0; i < 3; i++)
      expect([...tf.subarray(5 + 7 * i, 12 + 7 * i)]).toEqual([126, 3, 4, 5, 6, 7, 0]);
  });

  it('NM carries the name bytes exactly, with no continuation flag', () => {
    const nm = nmEntry(new TextEncoder().encode('network-config'));
    expect(sig(nm)).toBe('NM');
    expect(nm[2]).toBe(5 + 14);
    expect(nm[4]).toBe(0);
    expect(text(nm, 5, 14)).toBe('network-config');
  });
});
