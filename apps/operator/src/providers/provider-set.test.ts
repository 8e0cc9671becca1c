import { localProviderFactory } from '@egress-proxies/provider-local';
import { type ProviderEntry, ProviderRegistry } from '@egress-proxies/provider-utils';
import { loadProvidersConfig } from '@egress-proxies/provider-utils/providers-file';
import { describe, expect, it } from 'vitest';
import { referenceHandle } from '../../test/support/reconcile-fixture.js';
import { entryFingerprint } from './fingerprint.js';
import { ProviderSet } from './provider-set.js';

const registry = new ProviderRegistry().register(localProviderFactory);
const entries = (text: string): ProviderEntry[] => loadProvidersConfig(text, { registry });
const cfg = (dirs: Record<string, string>) =>
  Object.entries(dirs)
    .map(([n, d]) => `- name: ${n}\n  type: local\n  local:\n    stateDir: ${d}\n`)
    .join('');

function counting() {
  const built: string[] = [];
  const closed: string[] = [];
  const set = new ProviderSet((entry) => {
    if (entry.name === 'broken') throw new Error('cannot build broken');
    built.push(entry.name);
    const { provider } = referenceHandle(entry.name);
    provider.close = async () => {
      closed.push(entry.name);
    };
    return { provider };
  });
  return { set, built, closed };
}

describe('ProviderSet', () => {
  it('builds new entries, keeps unchanged ones, rebuilds changed ones and closes removed ones', async () => {
    const { set, built, closed } = counting();
    const diffs: unknown[] = [];
    set.onChange((d) => diffs.push(d));
    expect(await set.apply(entries(cfg({ a: '/a', b: '/b' })))).toEqual({
      added: ['a', 'b'],
      changed: [],
      removed: [],
    });
    const a = set.get('a');
    expect(await set.apply(entries(cfg({ a: '/a', b: '/b2', c: '/c' })))).toEqual({
      added: ['c'],
      changed: ['b'],
      removed: [],
    });
    expect(set.get('a')).toBe(a);
    expect(await set.apply(entries(cfg({ b: '/b2' })))).toEqual({
      added: [],
      changed: [],
      removed: ['a', 'c'],
    });
    await new Promise((r) => setTimeout(r, 0));
    expect(built).toEqual(['a', 'b', 'b', 'c']);
    expect(closed.sort()).toEqual(['a', 'b', 'c']);
    expect(set.names()).toEqual(['b']);
    expect(diffs).toHaveLength(3);
    // No change: no event.
    await set.apply(entries(cfg({ b: '/b2' })));
    expect(diffs).toHaveLength(3);
  });

  it('leaves the old set in place when an entry cannot be built', async () => {
    const { set } = counting();
    await set.apply(entries(cfg({ a: '/a' })));
    await expect(set.apply(entries(cfg({ a: '/a', broken: '/x' })))).rejects.toThrow('cannot build broken');
    expect(set.names()).toEqual(['a']);
  });

  it('fingerprints ignore key order and see every value', () => {
    const a = { name: 'n', type: 'local', config: { x: 1, y: { p: 1, q: 2 } } };
    const b = { name: 'n', type: 'local', config: { y: { q: 2, p: 1 }, x: 1 } };
    expect(entryFingerprint(a)).toBe(entryFingerprint(b));
    expect(entryFingerprint({ ...a, config: { x: 2, y: { p: 1, q: 2 } } })).not.toBe(entryFingerprint(a));
  });
});
