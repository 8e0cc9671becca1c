import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROXMOX_DESCRIPTION_KEYS, PROXMOX_TAG } from './marks.js';

// docs/marks.md describes the code; this catches the two drifting apart for proxmox.
const text = readFileSync(fileURLToPath(new URL('../../../docs/marks.md', import.meta.url)), 'utf8');

describe('docs/marks.md', () => {
  it('documents the proxmox tag and every description key', () => {
    expect(text).toContain('`PROXMOX_TAG`');
    expect(text).toContain(PROXMOX_TAG);
    for (const key of Object.values(PROXMOX_DESCRIPTION_KEYS)) expect(text).toContain(`${key}=`);
  });
});
