import { describe, expect, it } from 'vitest';
import { compareJoliet, compareLevel1, jolietIdentifierBytes, level1Identifier } from './names.js';

describe('level-1 identifiers (the plain ISO 9660 fallback)', () => {
  it('maps the seed names to distinct 8.3 names of d-characters', () => {
    const ids = ['user-data', 'meta-data', 'vendor-data', 'network-config'].map(level1Identifier);
    expect(ids).toEqual(['USER_DAT.;1', 'META_DAT.;1', 'VENDOR_D.;1', 'NETWORK_.;1']);
    expect(new Set(ids).size).toBe(4);
    for (const id of ids) expect(id).toMatch(/^[A-Z0-9_]{1,8}\.[A-Z0-9_]{0,3};1$/);
  });

  it('keeps an extension of up to three characters', () => {
    expect(level1Identifier('archive.tar.gz')).toBe('ARCHIVE_.GZ;1');
    expect(level1Identifier('a.json')).toBe('A.JSO;1');
  });

  it('orders by name padded with spaces, then extension (ECMA-119 9.3)', () => {
    expect(compareLevel1('A.;1', 'AB.;1')).toBeLessThan(0); // 'A ' < 'AB'
    expect(compareLevel1('A_.;1', 'AB.;1')).toBeGreaterThan(0); // '_' (0x5F) > 'B'
    expect(compareLevel1('AB.C;1', 'AB.;1')).toBeGreaterThan(0);
    expect(compareLevel1('META_DAT.;1', 'META_DAT.;1')).toBe(0);
    const sorted = ['VENDOR_D.;1', 'USER_DAT.;1', 'NETWORK_.;1', 'META_DAT.;1'].sort(compareLevel1);
    expect(sorted).toEqual(['META_DAT.;1', 'NETWORK_.;1', 'USER_DAT.;1', 'VENDOR_D.;1']);
  });
});

describe('Joliet identifiers', () => {
  it('are the exact name in UCS-2 big-endian without a version suffix', () => {
    expect([...jolietIdentifierBytes('user-data')]).toEqual(
      [...'user-data'].flatMap((c) => [0, c.charCodeAt(0)]),
    );
  });

  it('order by code unit', () => {
    expect(['vendor-data', 'meta-data', 'user-data'].sort(compareJoliet)).toEqual([
      'meta-data',
      'user-data',
      'vendor-data',
    ]);
  });
});
