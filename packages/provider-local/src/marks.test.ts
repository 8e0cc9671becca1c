import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as marks from './marks.js';

// docs/marks.md describes the code; this catches the two drifting apart for local.
const text = readFileSync(fileURLToPath(new URL('../../../docs/marks.md', import.meta.url)), 'utf8');

describe('docs/marks.md', () => {
  it('documents every local mark by name and value', () => {
    for (const [name, value] of Object.entries(marks)) {
      if (typeof value !== 'string') continue;
      expect(text, name).toContain(`\`${name}\``);
      expect(text, `${name} value`).toContain(value);
    }
    for (const field of Object.values(marks.LOCAL_STATE_FIELDS)) expect(text).toContain(`"${field}"`);
  });
});
