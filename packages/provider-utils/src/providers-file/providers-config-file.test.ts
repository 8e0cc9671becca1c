import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProvidersConfigError } from '../config/providers-config-error.js';
import { loadProvidersConfigFile as loadFile } from './providers-config-file.js';
import { testRegistry } from './test-registry.js';

const registry = testRegistry();
const loadProvidersConfigFile = (path: string, options: { signal?: AbortSignal } = {}) =>
  loadFile(path, { registry, ...options });

const dir = mkdtempSync(join(tmpdir(), 'providers-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadProvidersConfigFile', () => {
  it('loads a file', async () => {
    const file = join(dir, 'ok.yaml');
    writeFileSync(file, '- name: dev\n  type: cloud\n  cloud: {project: p}\n');
    const entries = await loadProvidersConfigFile(file);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ name: 'dev', type: 'cloud', config: { project: 'p', diskGb: 10 } });
  });

  it('names the file in syntax errors', async () => {
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, '- name: dev\n  type: [cloud\n');
    const err = await loadProvidersConfigFile(file).catch((e: unknown) => e);
    expect(ProvidersConfigError.isInstance(err)).toBe(true);
    expect((err as ProvidersConfigError).issues[0]?.path).toMatch(
      new RegExp(`^${file.replace(/[.]/g, '\\.')}:\\d+:\\d+$`),
    );
    expect((err as ProvidersConfigError).message.split('\n')[0]).toContain(file);
  });

  it('reports a missing file as a config error naming the path', async () => {
    const file = join(dir, 'missing.yaml');
    const err = await loadProvidersConfigFile(file).catch((e: unknown) => e);
    expect(ProvidersConfigError.isInstance(err)).toBe(true);
    expect((err as ProvidersConfigError).issues[0]).toMatchObject({ path: file });
    expect((err as ProvidersConfigError).issues[0]?.message).toContain('ENOENT');
  });

  it('rejects with the abort reason when the signal is aborted', async () => {
    const file = join(dir, 'ok.yaml');
    const reason = new Error('shutting down');
    await expect(loadProvidersConfigFile(file, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });
});
