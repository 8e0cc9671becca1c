import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProviderEntry } from '@egress-proxies/provider-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigWatcher } from './config-watcher.js';
import { providerLoader } from './load-providers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(initial: string) {
  const dir = mkdtempSync(join(tmpdir(), 'ep-cfg-'));
  dirs.push(dir);
  const path = join(dir, 'providers.yaml');
  writeFileSync(path, initial);
  const configs: ProviderEntry[][] = [];
  const errors: string[] = [];
  const loader = providerLoader(path, {});
  const w = new ConfigWatcher({
    path,
    pollMs: 60_000,
    load: (text) => loader.loadConfig(text),
    onConfig: (e) => {
      configs.push(e);
    },
    onError: (e) => errors.push(e instanceof Error ? e.message : String(e)),
  });
  w.setInitial(initial);
  return { w, path, configs, errors };
}

const entry = (n: string) => `- name: ${n}\n  type: local\n  local:\n    stateDir: /s/${n}\n`;

describe('ConfigWatcher', () => {
  it('applies a changed file once and ignores an unchanged one', async () => {
    const t = setup(entry('a'));
    await t.w.check();
    expect(t.configs).toHaveLength(0);
    writeFileSync(t.path, entry('a') + entry('b'));
    await t.w.check();
    await t.w.check();
    expect(t.configs.map((c) => c.map((e) => e.name))).toEqual([['a', 'b']]);
  });

  it('reports a bad file with its path and the bad field, and applies the next good one', async () => {
    const t = setup(entry('a'));
    writeFileSync(t.path, '- name: a\n  type: lokal\n');
    await t.w.check();
    expect(t.configs).toHaveLength(0);
    expect(t.errors[0]).toContain(t.path);
    expect(t.errors[0]).toContain('providers[0].type: unknown type "lokal" (did you mean "local"?)');
    writeFileSync(t.path, entry('c'));
    await t.w.check();
    expect(t.configs.map((c) => c.map((e) => e.name))).toEqual([['c']]);
  });

  it('notices a change through fs.watch without an explicit check', async () => {
    const t = setup(entry('a'));
    t.w.start();
    try {
      writeFileSync(t.path, entry('z'));
      const deadline = Date.now() + 5000;
      while (t.configs.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(t.configs.map((c) => c.map((e) => e.name))).toEqual([['z']]);
    } finally {
      t.w.stop();
    }
  });

  it('treats a briefly missing file (a symlink swap) as no change', async () => {
    const t = setup(entry('a'));
    rmSync(t.path);
    await t.w.check();
    expect(t.errors).toEqual([]);
    expect(t.configs).toEqual([]);
  });
});
