// An independent, test-only reader for the parts of ECMA-119, Joliet and SUSP/RRIP the
// seed uses. It reads by the offsets in the standards, not by the writer's code, and checks
// that both halves of every both-endian number agree.

export const BLOCK = 2048;

export function le16(b: Uint8Array, o: number): number {
  return b[o]! | (b[o + 1]! << 8);
}
export function be16(b: Uint8Array, o: number): number {
  return (b[o]! << 8) | b[o + 1]!;
}
export function le32(b: Uint8Array, o: number): number {
  return (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
}
export function be32(b: Uint8Array, o: number): number {
  return ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;
}
export function both16(b: Uint8Array, o: number): number {
  const l = le16(b, o);
  if (l !== be16(b, o + 2)) throw new Error(`both-endian 16 mismatch at ${o}: ${l} vs ${be16(b, o + 2)}`);
  return l;
}
export function both32(b: Uint8Array, o: number): number {
  const l = le32(b, o);
  if (l !== be32(b, o + 4)) throw new Error(`both-endian 32 mismatch at ${o}: ${l} vs ${be32(b, o + 4)}`);
  return l;
}
export function text(b: Uint8Array, o: number, n: number): string {
  return String.fromCharCode(...b.subarray(o, o + n));
}
export function ucs2(b: Uint8Array, o: number, n: number): string {
  let s = '';
  for (let i = 0; i + 1 < n; i += 2) s += String.fromCharCode(be16(b, o + i));
  return s;
}

export interface SuEntry {
  sig: string;
  version: number;
  data: Uint8Array;
}

export interface Record {
  offset: number;
  length: number;
  extent: number;
  size: number;
  date: number[];
  flags: number;
  identifier: Uint8Array;
  systemUse: Uint8Array;
  /** SUSP entries, with CE continuation areas followed. */
  entries: SuEntry[];
}

export function parseSu(image: Uint8Array, su: Uint8Array): SuEntry[] {
  const out: SuEntry[] = [];
  let area = su;
  for (let guard = 0; guard < 16; guard++) {
    let next: { block: number; offset: number; length: number } | null = null;
    let o = 0;
    while (o + 4 <= area.length) {
      const len = area[o + 2]!;
      if (len < 4 || o + len > area.length) throw new Error(`bad SUSP entry length ${len} at ${o}`);
      const entry = { sig: text(area, o, 2), version: area[o + 3]!, data: area.slice(o + 4, o + len) };
      out.push(entry);
      if (entry.sig === 'CE') {
        next = {
          block: both32(entry.data, 0),
          offset: both32(entry.data, 8),
          length: both32(entry.data, 16),
        };
      }
      if (entry.sig === 'ST') break;
      o += len;
    }
    if (!next) return out;
    const start = next.block * BLOCK + next.offset;
    area = image.subarray(start, start + next.length);
  }
  throw new Error('CE chain too long');
}

export function readRecord(image: Uint8Array, o: number): Record {
  const length = image[o]!;
  const idLen = image[o + 32]!;
  const identifier = image.slice(o + 33, o + 33 + idLen);
  let su = o + 33 + idLen;
  if (idLen % 2 === 0) su += 1;
  const systemUse = image.slice(su, o + length);
  return {
    offset: o,
    length,
    extent: both32(image, o + 2),
    size: both32(image, o + 10),
    date: Array.from(image.subarray(o + 18, o + 25)),
    flags: image[o + 25]!,
    identifier,
    systemUse,
    entries: parseSu(image, systemUse),
  };
}

/** All records of a directory; a zero length byte means "rest of this block unused". */
export function readDirectory(image: Uint8Array, extent: number, size: number): Record[] {
  const out: Record[] = [];
  const start = extent * BLOCK;
  let o = start;
  while (o < start + size) {
    const len = image[o]!;
    if (len === 0) {
      o = start + (Math.floor((o - start) / BLOCK) + 1) * BLOCK;
      continue;
    }
    if (Math.floor((o - start) / BLOCK) !== Math.floor((o - start + len - 1) / BLOCK)) {
      throw new Error(`record at ${o} crosses a block boundary`);
    }
    out.push(readRecord(image, o));
    o += len;
  }
  return out;
}

export interface VolumeDescriptor {
  type: number;
  standardId: string;
  version: number;
  volumeId: string;
  volumeBlocks: number;
  escape: Uint8Array;
  setSize: number;
  sequence: number;
  blockSize: number;
  pathTableSize: number;
  pathL: number;
  pathM: number;
  root: Record;
  created: string;
  modified: string;
  expires: string;
  effective: string;
  structureVersion: number;
}

export function readVolumeDescriptor(image: Uint8Array, block: number): VolumeDescriptor {
  const o = block * BLOCK;
  const type = image[o]!;
  const joliet = type === 2;
  return {
    type,
    standardId: text(image, o + 1, 5),
    version: image[o + 6]!,
    volumeId: (joliet ? ucs2(image, o + 40, 32) : text(image, o + 40, 32)).trimEnd(),
    volumeBlocks: both32(image, o + 80),
    escape: image.slice(o + 88, o + 120),
    setSize: both16(image, o + 120),
    sequence: both16(image, o + 124),
    blockSize: both16(image, o + 128),
    pathTableSize: both32(image, o + 132),
    pathL: le32(image, o + 140),
    pathM: be32(image, o + 148),
    root: readRecord(image, o + 156),
    created: text(image, o + 813, 17),
    modified: text(image, o + 830, 17),
    expires: text(image, o + 847, 17),
    effective: text(image, o + 864, 17),
    structureVersion: image[o + 881]!,
  };
}

export function rockRidgeName(record: Record): string | undefined {
  const nm = record.entries.filter((e) => e.sig === 'NM');
  if (nm.length === 0) return undefined;
  return nm.map((e) => text(e.data, 1, e.data.length - 1)).join('');
}

/** Reads a seed's files through the Joliet tree (the primary tree is checked separately). */
export function jolietFiles(image: Uint8Array): Map<string, Uint8Array> {
  const svd = readVolumeDescriptor(image, 17);
  const files = new Map<string, Uint8Array>();
  for (const r of readDirectory(image, svd.root.extent, svd.root.size).slice(2)) {
    files.set(
      ucs2(r.identifier, 0, r.identifier.length),
      image.slice(r.extent * BLOCK, r.extent * BLOCK + r.size),
    );
  }
  return files;
}
