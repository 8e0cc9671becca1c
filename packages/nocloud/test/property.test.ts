import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildSeedIso, type SeedContent } from '../src/index.js';
import { ensureJudges } from './helpers/iso-tools.js';
import {
  blkidLabel,
  bsdtarExtract,
  isoinfoExtract,
  isoinfoList,
  isovfy,
  pycdlibReport,
  sevenZipExtract,
  xorrisoExtract,
} from './helpers/judges.js';

const MAX = 4 * 1024 * 1024;

/** Pseudo-random bytes from a seed: fast-check picks size and seed, this fills megabytes quickly. */
function noise(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed >>> 0 || 0x9e3779b9;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

// Sizes around block boundaries are where off-by-one layouts break; the rest are uniform.
const size = fc.oneof(
  fc.constantFrom(0, 1, 2047, 2048, 2049, 4096, MAX - 1, MAX),
  fc.integer({ min: 0, max: MAX }),
);
const bytes = fc.tuple(size, fc.integer()).map(([n, seed]) => noise(n, seed));
const content: fc.Arbitrary<SeedContent> = fc.oneof(
  { weight: 4, arbitrary: bytes },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 3000 }) },
);
const seedArb = fc.record({
  userData: content,
  metaData: content,
  vendorData: fc.option(content, { nil: undefined }),
  networkConfig: fc.option(content, { nil: undefined }),
  date: fc.option(
    fc.date({
      min: new Date('1970-01-01T00:00:00Z'),
      max: new Date('2155-12-31T23:59:59.999Z'),
      noInvalidDate: true,
    }),
    { nil: undefined },
  ),
});

const FIELD_NAMES = {
  userData: 'user-data',
  metaData: 'meta-data',
  vendorData: 'vendor-data',
  networkConfig: 'network-config',
} as const;

const encoder = new TextEncoder();
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('every judge extracts exactly the input (property)', () => {
  beforeAll(() => ensureJudges(), 900_000);

  it('holds for random contents and sizes from 0 B to 4 MiB', () => {
    fc.assert(
      fc.property(seedArb, (seed) => {
        const expected = new Map<string, string>();
        for (const [field, name] of Object.entries(FIELD_NAMES)) {
          const value = seed[field as keyof typeof FIELD_NAMES];
          if (value === undefined) continue;
          expected.set(name, sha(typeof value === 'string' ? encoder.encode(value) : value));
        }
        const names = [...expected.keys()].sort();
        const dir = mkdtempSync(join(tmpdir(), 'nocloud-prop-'));
        try {
          const iso = join(dir, 'seed.iso');
          const image = buildSeedIso(seed, seed.date ? { date: seed.date } : {});
          writeFileSync(iso, image);
          const check = (judge: string, got: Map<string, Buffer>) => {
            expect([...got.keys()].sort(), judge).toEqual(names);
            for (const [name, digest] of expected)
              expect(sha(got.get(name)!), `${judge} ${name}`).toBe(digest);
          };
          expect(isovfy(iso)).toMatch(/^No errors found$/m);
          expect(isoinfoList(iso, '-R')).toEqual(names);
          expect(isoinfoList(iso, '-J')).toEqual(names);
          for (const [name, digest] of expected) {
            expect(sha(isoinfoExtract(iso, '-R', name)), `isoinfo -R ${name}`).toBe(digest);
            expect(sha(isoinfoExtract(iso, '-J', name)), `isoinfo -J ${name}`).toBe(digest);
          }
          check('xorriso', xorrisoExtract(iso, join(dir, 'xorriso')));
          check('bsdtar', bsdtarExtract(iso, join(dir, 'bsdtar')));
          check('7z', sevenZipExtract(iso, join(dir, '7z')));
          const py = pycdlibReport(iso);
          const pyRr = new Map(Object.entries(py.rr).map(([n, v]) => [n, v.sha256]));
          const pyJ = new Map(Object.entries(py.jolietFiles).map(([n, v]) => [n, v.sha256]));
          expect(pyRr, 'pycdlib rock ridge').toEqual(expected);
          expect(pyJ, 'pycdlib joliet').toEqual(expected);
          expect(blkidLabel(iso).label).toBe('cidata');
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 10 },
    );
  }, 600_000);
});
