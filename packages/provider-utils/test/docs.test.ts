import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as contract from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import * as utils from '../src/index.js';
import * as providersFile from '../src/providers-file/index.js';

// docs/contract.md section 1 names each piece, its type and the package it lives in; this holds
// the table to the two packages' exports (a type-only name is checked by its runtime helpers'
// presence where it has none).
const text = readFileSync(fileURLToPath(new URL('../../../docs/contract.md', import.meta.url)), 'utf8');
const section = text.slice(text.indexOf('## 1. The pieces'), text.indexOf('## 2. Rules'));
const rows = section
  .split('\n')
  .filter((l) => l.startsWith('|') && !l.startsWith('| ---') && !l.startsWith('| Piece'))
  .map((l) =>
    l
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim()),
  );

// Names that are types only: present in the declarations, absent at run time.
const TYPE_ONLY = new Set([
  'Provider',
  'Checker',
  'ConfigSchema',
  'ProviderFactory',
  'ProviderTypeSource',
  'ProviderEntry',
  'CreateRequest',
  'Instance',
  'ProviderProfile',
  'CallOptions',
]);

describe('docs/contract.md section 1', () => {
  it('has a row per piece', () => {
    expect(rows.length).toBeGreaterThanOrEqual(10);
  });

  it.each(rows.map((r) => [r[0], r] as const))('%s names exports of the package it says', (_piece, row) => {
    const names = [...(row[1] ?? '').matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1] as string);
    const pkg = row[2];
    for (const name of names) {
      if (TYPE_ONLY.has(name) || name === 'string') continue;
      const where =
        pkg === 'contract' ? contract : pkg === 'provider-utils' ? { ...utils, ...providersFile } : undefined;
      expect(where, `${name}: unknown package ${pkg}`).toBeDefined();
      expect(Object.hasOwn(where ?? {}, name), `${name} is not exported by ${pkg}`).toBe(true);
    }
  });
});
