import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureInstallation, readState, removeStaleTempFiles, statePath, writeState } from './state-file.js';

const dir = mkdtempSync(join(tmpdir(), 'ep-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the standalone state file', () => {
  it('generates the installation id once and keeps it', () => {
    const d = join(dir, 'a');
    const id = ensureInstallation(d);
    expect(id).toMatch(/^standalone-[0-9a-f-]{36}$/);
    expect(ensureInstallation(d)).toBe(id);
    expect(ensureInstallation(join(dir, 'b'))).not.toBe(id);
  });

  it('round-trips records and leaves no temp file behind', () => {
    const d = join(dir, 'c');
    const rec = {
      namespace: 'default',
      name: 'p',
      uid: 'u1',
      generation: 2,
      spec: { provider: 'local' },
      finalizers: ['f'],
    };
    writeState(d, { installation: 'inst', proxies: [rec] });
    expect(readState(d)).toMatchObject({ installation: 'inst', proxies: [rec] });
    expect(readdirSync(d)).toEqual(['standalone-state.json']);
  });

  it('reads a missing file as no state and refuses one that is not ours, naming it', () => {
    expect(readState(join(dir, 'none'))).toBeUndefined();
    const d = join(dir, 'bad');
    writeState(d, { installation: 'x', proxies: [] });
    writeFileSync(statePath(d), '{"kind":"other"}');
    expect(() => readState(d)).toThrow(`${statePath(d)} is not a standalone state file (kind "other")`);
    writeFileSync(statePath(d), '{oops');
    expect(() => readState(d)).toThrow(`${statePath(d)} is not JSON`);
  });

  it("removes the temp files of writers that died, and a live writer's never", () => {
    const d = join(dir, 'tmp');
    writeState(d, { installation: 'x', proxies: [] });
    writeFileSync(`${statePath(d)}.111.tmp`, '{"half');
    writeFileSync(`${statePath(d)}.222.tmp`, '{"half');
    writeFileSync(join(d, 'other.111.tmp'), 'not ours');
    removeStaleTempFiles(d, (pid) => pid === 222);
    expect(readdirSync(d).sort()).toEqual([
      'other.111.tmp',
      'standalone-state.json',
      'standalone-state.json.222.tmp',
    ]);
  });
});
