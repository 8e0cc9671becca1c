import { describe, expect, it } from 'vitest';
import {
  BLOCK,
  be16,
  be32,
  jolietFiles,
  le16,
  le32,
  type Record,
  readDirectory,
  readVolumeDescriptor,
  rockRidgeName,
  text,
  ucs2,
} from '../test/helpers/iso-reader.js';
import { MAX_FILE_SIZE } from './constants.js';
import { SeedInputError, SeedTooLargeError } from './errors.js';
import { buildSeedIso } from './seed-iso.js';

const date = new Date('2026-03-04T05:06:07.080Z');
const seed = {
  userData: '#cloud-config\nruncmd: [ echo hi ]\n',
  metaData: 'instance-id: "a"\n',
  vendorData: new Uint8Array(3000).fill(0x41),
  networkConfig: 'version: 2\n',
};
const image = buildSeedIso(seed, { date });
const pvd = readVolumeDescriptor(image, 16);
const svd = readVolumeDescriptor(image, 17);
const primary = readDirectory(image, pvd.root.extent, pvd.root.size);
const joliet = readDirectory(image, svd.root.extent, svd.root.size);
const names = ['meta-data', 'network-config', 'user-data', 'vendor-data'];
const sigs = (r: Record) => r.entries.map((e) => e.sig);

describe('volume descriptors', () => {
  it('leaves the 16-block system area zero and fills whole blocks', () => {
    expect(image.subarray(0, 16 * BLOCK).every((b) => b === 0)).toBe(true);
    expect(image.length % BLOCK).toBe(0);
  });

  it('writes a primary descriptor labelled cidata at block 16', () => {
    expect(pvd.type).toBe(1);
    expect(pvd.standardId).toBe('CD001');
    expect(pvd.version).toBe(1);
    expect(text(image, 16 * BLOCK + 40, 32)).toBe(`cidata${' '.repeat(26)}`);
    expect(pvd.volumeBlocks).toBe(image.length / BLOCK);
    expect([pvd.setSize, pvd.sequence, pvd.blockSize]).toEqual([1, 1, 2048]);
    expect(pvd.structureVersion).toBe(1);
    expect(pvd.created).toBe('2026030405060708\0');
    expect(pvd.modified).toBe('2026030405060708\0');
    expect(pvd.expires).toBe('0000000000000000\0');
    expect(pvd.root.length).toBe(34);
    expect(pvd.root.flags).toBe(2);
  });

  it('writes a Joliet supplementary descriptor with escape %/E and a UCS-2 label at block 17', () => {
    expect(svd.type).toBe(2);
    expect(svd.standardId).toBe('CD001');
    expect([...svd.escape.subarray(0, 3)]).toEqual([0x25, 0x2f, 0x45]);
    expect(svd.escape.subarray(3).every((b) => b === 0)).toBe(true);
    expect(ucs2(image, 17 * BLOCK + 40, 32)).toBe(`cidata${' '.repeat(10)}`);
    expect(svd.volumeBlocks).toBe(pvd.volumeBlocks);
    expect(svd.root.extent).not.toBe(pvd.root.extent);
  });

  it('ends the set with a terminator at block 18', () => {
    expect(image[18 * BLOCK]).toBe(255);
    expect(text(image, 18 * BLOCK + 1, 5)).toBe('CD001');
    expect(image[18 * BLOCK + 6]).toBe(1);
    expect(image.subarray(18 * BLOCK + 7, 19 * BLOCK).every((b) => b === 0)).toBe(true);
  });
});

describe('path tables', () => {
  it.each([
    ['primary', pvd],
    ['joliet', svd],
  ])('the %s tables hold the root in both byte orders', (_, vd) => {
    expect(vd.pathTableSize).toBe(10);
    const l = vd.pathL * BLOCK;
    const m = vd.pathM * BLOCK;
    expect([image[l], image[l + 1], le32(image, l + 2), le16(image, l + 6), image[l + 8]]).toEqual([
      1,
      0,
      vd.root.extent,
      1,
      0,
    ]);
    expect([image[m], image[m + 1], be32(image, m + 2), be16(image, m + 6), image[m + 8]]).toEqual([
      1,
      0,
      vd.root.extent,
      1,
      0,
    ]);
  });
});

describe('the primary tree with Rock Ridge', () => {
  it('holds ., .. and the files in ECMA-119 order under their 8.3 names', () => {
    expect(primary.map((r) => [...r.identifier])).toEqual([
      [0],
      [1],
      ...['META_DAT.;1', 'NETWORK_.;1', 'USER_DAT.;1', 'VENDOR_D.;1'].map((s) => [
        ...new TextEncoder().encode(s),
      ]),
    ]);
    for (const r of primary) expect(r.length % 2).toBe(0);
  });

  it("starts the root's . record with SP and reaches ER (RRIP_1991A) through CE", () => {
    const dot = primary[0]!;
    expect(dot.extent).toBe(pvd.root.extent);
    expect(dot.systemUse[0]).toBe(0x53); // S
    expect(sigs(dot)).toEqual(['SP', 'RR', 'PX', 'TF', 'CE', 'ER']);
    const er = dot.entries.find((e) => e.sig === 'ER')!;
    expect(text(er.data, 4, er.data[0]!)).toBe('RRIP_1991A');
  });

  it('places the continuation area after both directories and before any file data', () => {
    const ce = primary[0]!.entries.find((e) => e.sig === 'CE')!;
    const block = le32(ce.data, 0);
    expect(block).toBeGreaterThan(pvd.root.extent);
    expect(block).toBeGreaterThan(svd.root.extent);
    for (const r of primary.slice(2)) expect(r.extent).toBeGreaterThan(block);
  });

  it('gives the directory PX mode 040555 and each file 0100444 with its exact NM name', () => {
    const px = (r: Record) => le32(r.entries.find((e) => e.sig === 'PX')!.data, 0);
    expect(px(primary[0]!)).toBe(0o40555);
    expect(px(primary[1]!)).toBe(0o40555);
    for (const r of primary.slice(2)) {
      expect(sigs(r)).toEqual(['RR', 'NM', 'PX', 'TF']);
      expect(r.entries[0]!.data[0]).toBe(0x89);
      expect(px(r)).toBe(0o100444);
    }
    expect(primary.slice(2).map(rockRidgeName)).toEqual(names);
  });

  it('dates every record with options.date', () => {
    for (const r of [...primary, ...joliet]) expect(r.date).toEqual([126, 3, 4, 5, 6, 7, 0]);
  });
});

describe('the Joliet tree', () => {
  it('holds ., .. and the exact names in UCS-2, with no system use entries', () => {
    expect(joliet.slice(2).map((r) => ucs2(r.identifier, 0, r.identifier.length))).toEqual(names);
    for (const r of joliet) expect(r.systemUse.every((b) => b === 0)).toBe(true);
    expect(joliet[0]!.extent).toBe(svd.root.extent);
    expect(joliet[1]!.extent).toBe(svd.root.extent);
  });

  it('shares the file data with the primary tree', () => {
    const primaryByName = new Map(primary.slice(2).map((r) => [rockRidgeName(r), r]));
    for (const r of joliet.slice(2)) {
      const p = primaryByName.get(ucs2(r.identifier, 0, r.identifier.length))!;
      expect([r.extent, r.size]).toEqual([p.extent, p.size]);
    }
  });
});

describe('file data', () => {
  it('is the input, UTF-8 for strings, zero-padded to the block', () => {
    const files = jolietFiles(image);
    const enc = new TextEncoder();
    expect(files.get('user-data')).toEqual(enc.encode(seed.userData));
    expect(files.get('meta-data')).toEqual(enc.encode(seed.metaData));
    expect(files.get('network-config')).toEqual(enc.encode(seed.networkConfig));
    expect(files.get('vendor-data')).toEqual(seed.vendorData);
    const v = joliet.find((r) => ucs2(r.identifier, 0, r.identifier.length) === 'vendor-data')!;
    expect(image.subarray(v.extent * BLOCK + 3000, (v.extent + 2) * BLOCK).every((b) => b === 0)).toBe(true);
  });

  it('takes bytes from a view into a larger buffer without reading outside it', () => {
    const backing = new Uint8Array(100).fill(0x5a);
    backing.set([1, 2, 3], 40);
    const out = jolietFiles(buildSeedIso({ userData: backing.subarray(40, 43), metaData: '' }));
    expect([...out.get('user-data')!]).toEqual([1, 2, 3]);
  });
});

describe('determinism and dates', () => {
  it('gives the same bytes for the same input and date', () => {
    expect(Buffer.from(buildSeedIso(seed, { date })).equals(image)).toBe(true);
    expect(Buffer.from(buildSeedIso(seed)).equals(buildSeedIso(seed))).toBe(true);
  });

  it('defaults to the Unix epoch and records a given date instead', () => {
    const epoch = readVolumeDescriptor(buildSeedIso(seed), 16);
    expect(epoch.created).toBe('1970010100000000\0');
    const later = buildSeedIso(seed, { date: new Date(10_000) });
    expect(readVolumeDescriptor(later, 16).created).toBe('1970010100001000\0');
    expect(Buffer.from(later).equals(buildSeedIso(seed))).toBe(false);
  });
});

describe('optional and empty files', () => {
  it('omits vendor-data and network-config when undefined or null', () => {
    for (const extra of [{}, { vendorData: undefined, networkConfig: null }]) {
      const files = jolietFiles(buildSeedIso({ userData: 'u', metaData: 'm', ...extra }));
      expect([...files.keys()]).toEqual(['meta-data', 'user-data']);
    }
  });

  it('accepts empty files and keeps every extent inside the volume', () => {
    const iso = buildSeedIso({
      userData: '',
      metaData: new Uint8Array(0),
      vendorData: '',
      networkConfig: '',
    });
    const vd = readVolumeDescriptor(iso, 16);
    const records = readDirectory(iso, vd.root.extent, vd.root.size).slice(2);
    expect(records.map((r) => r.size)).toEqual([0, 0, 0, 0]);
    for (const r of records) expect(r.extent).toBeLessThan(vd.volumeBlocks);
    expect(vd.volumeBlocks * BLOCK).toBe(iso.length);
  });
});

describe('bad input', () => {
  const thrown = (f: () => unknown): Error => {
    try {
      f();
    } catch (err) {
      return err as Error;
    }
    throw new Error('expected a throw');
  };

  it.each([
    ['userData', { userData: 42, metaData: '' }],
    ['metaData', { userData: '' }],
    ['vendorData', { userData: '', metaData: '', vendorData: ['x'] }],
    ['networkConfig', { userData: '', metaData: '', networkConfig: new ArrayBuffer(4) }],
  ])('rejects a non-string, non-bytes %s with a TypeError naming it', (field, input) => {
    const err = thrown(() => buildSeedIso(input as never));
    expect(err).toBeInstanceOf(TypeError);
    expect(SeedInputError.isInstance(err)).toBe(true);
    expect((err as SeedInputError).field).toBe(field);
    expect((err as SeedInputError).code).toBe('NOCLOUD_INVALID_INPUT');
    expect(err.message).toMatch(new RegExp(`^${field} must be a string or a Uint8Array, got `));
  });

  it('never puts the bad value in the message', () => {
    const err = thrown(() => buildSeedIso({ userData: { password: 'hunter2' }, metaData: '' } as never));
    expect(err.message).not.toContain('hunter2');
    expect(err.message).toContain('an object');
  });

  it('rejects a seed that is not an object and options that are not an object', () => {
    expect((thrown(() => buildSeedIso(null as never)) as SeedInputError).field).toBe('seed');
    expect((thrown(() => buildSeedIso(seed, null as never)) as SeedInputError).field).toBe('options');
    expect((thrown(() => buildSeedIso(seed, { date: 'today' as never })) as SeedInputError).field).toBe(
      'options.date',
    );
  });

  it('accepts user-data of exactly 16 MiB', () => {
    const big = new Uint8Array(MAX_FILE_SIZE);
    big[0] = 7;
    big[MAX_FILE_SIZE - 1] = 9;
    const out = jolietFiles(buildSeedIso({ userData: big, metaData: '' })).get('user-data')!;
    expect(out.length).toBe(MAX_FILE_SIZE);
    expect([out[0], out[MAX_FILE_SIZE - 1]]).toEqual([7, 9]);
  });

  it('rejects one byte more with a RangeError naming the field and the size', () => {
    const err = thrown(() => buildSeedIso({ userData: '', metaData: new Uint8Array(MAX_FILE_SIZE + 1) }));
    expect(err).toBeInstanceOf(RangeError);
    expect(SeedTooLargeError.isInstance(err)).toBe(true);
    expect(err).toMatchObject({ field: 'metaData', size: MAX_FILE_SIZE + 1, limit: MAX_FILE_SIZE });
    expect(err.message).toBe(
      'metaData is 16777217 bytes; a seed file may be at most 16777216 bytes (16 MiB)',
    );
  });

  it('measures strings in UTF-8 bytes, not characters', () => {
    const err = thrown(() => buildSeedIso({ userData: 'é'.repeat(MAX_FILE_SIZE / 2 + 1), metaData: '' }));
    expect(err).toMatchObject({ field: 'userData', size: MAX_FILE_SIZE + 2 });
  });
});
