import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as marks from './marks.js';

// docs/marks.md describes the code; this catches the two drifting apart for the kvm family.
const text = readFileSync(fileURLToPath(new URL('../../../docs/marks.md', import.meta.url)), 'utf8');

describe('docs/marks.md', () => {
  it('documents every kvm-family mark by name and value', () => {
    for (const [name, value] of Object.entries(marks)) {
      if (typeof value !== 'string') continue;
      expect(text, name).toContain(`\`${name}\``);
      expect(text, `${name} value`).toContain(value);
    }
    for (const attr of Object.values(marks.METADATA_ATTRIBUTES)) expect(text).toContain(`\`${attr}\``);
  });
});
