import { ascii, putBoth32 } from './bytes.js';
import { putRecordingDate } from './iso-date.js';

// System Use Sharing Protocol (SUSP 1.10) and Rock Ridge (RRIP 1.09, "RRIP_1991A") entries.
// Each entry is: two signature bytes, its total length, a version byte, then its data.

function entry(sig: string, dataLength: number): Uint8Array {
  const out = new Uint8Array(4 + dataLength);
  out[0] = sig.charCodeAt(0);
  out[1] = sig.charCodeAt(1);
  out[2] = out.length;
  out[3] = 1;
  return out;
}

/** SUSP "SP": marks SUSP use; only in the root's `.` record, first entry, skipping 0 bytes. */
export function spEntry(): Uint8Array {
  const out = entry('SP', 3);
  out[4] = 0xbe;
  out[5] = 0xef;
  out[6] = 0;
  return out;
}

/** RRIP 1.09 "RR" bit flags: which Rock Ridge entries the record carries. */
export const RR_PX = 0x01;
export const RR_NM = 0x08;
export const RR_TF = 0x80;

/**
 * RRIP 1.09 "RR". Optional, but cdrtools writes it, and Linux stops reading a record's
 * Rock Ridge entries when RR is present without PX, TF, SL or CL flagged, so it must be exact.
 */
export function rrEntry(flags: number): Uint8Array {
  const out = entry('RR', 1);
  out[4] = flags;
  return out;
}

/** RRIP "PX" in its 1.09 form (36 bytes: mode, links, uid, gid; no inode number). */
export function pxEntry(mode: number, links: number): Uint8Array {
  const out = entry('PX', 32);
  putBoth32(out, 4, mode);
  putBoth32(out, 12, links);
  putBoth32(out, 20, 0);
  putBoth32(out, 28, 0);
  return out;
}

/** TF flags: modification, access and attribute-change times, in the 7-byte short form. */
const TF_MODIFY = 0x02;
const TF_ACCESS = 0x04;
const TF_ATTRIBUTES = 0x08;

export function tfEntry(date: Date): Uint8Array {
  const out = entry('TF', 1 + 3 * 7);
  out[4] = TF_MODIFY | TF_ACCESS | TF_ATTRIBUTES;
  for (let i = 0; i < 3; i++) putRecordingDate(out, 5 + 7 * i, date);
  return out;
}

/** RRIP "NM": the POSIX name, byte for byte, in one component (our names are short). */
export function nmEntry(name: Uint8Array): Uint8Array {
  const out = entry('NM', 1 + name.length);
  out[4] = 0;
  out.set(name, 5);
  return out;
}

/** SUSP "CE": where the rest of this record's entries continue (block, offset, length). */
export const CE_LENGTH = 28;

export function ceEntry(block: number, offset: number, length: number): Uint8Array {
  const out = entry('CE', 24);
  putBoth32(out, 4, block);
  putBoth32(out, 12, offset);
  putBoth32(out, 20, length);
  return out;
}

// The identifier, descriptor and source texts RRIP 1.09 prescribes for its ER entry.
const RRIP_ID = 'RRIP_1991A';
const RRIP_DESCRIPTOR =
  'THE ROCK RIDGE INTERCHANGE PROTOCOL PROVIDES SUPPORT FOR POSIX FILE SYSTEM SEMANTICS';
const RRIP_SOURCE =
  'PLEASE CONTACT DISC PUBLISHER FOR SPECIFICATION SOURCE.  SEE PUBLISHER IDENTIFIER IN PRIMARY VOLUME DESCRIPTOR FOR CONTACT INFORMATION.';

/**
 * SUSP "ER": declares the Rock Ridge extension. Linux only prefers the Rock Ridge tree over
 * Joliet once it has seen this entry, and at 237 bytes it cannot share the root's `.` record
 * with the others, so it lives in a continuation area reached through CE.
 */
export function erEntry(): Uint8Array {
  const id = ascii(RRIP_ID);
  const des = ascii(RRIP_DESCRIPTOR);
  const src = ascii(RRIP_SOURCE);
  const out = entry('ER', 4 + id.length + des.length + src.length);
  out[4] = id.length;
  out[5] = des.length;
  out[6] = src.length;
  out[7] = 1;
  out.set(id, 8);
  out.set(des, 8 + id.length);
  out.set(src, 8 + id.length + des.length);
  return out;
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}
