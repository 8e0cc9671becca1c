import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newProxy } from '../../../test/support/reconcile-fixture.js';
import { FINALIZER } from '../../api/group.js';
import { FileProxyStore } from '../../standalone/file-proxy-store.js';
import type { EmulatedProxyStore } from './emulated-proxy-store.js';
import { MemoryProxyStore } from './memory-proxy-store.js';

const dir = mkdtempSync(join(tmpdir(), 'ep-emulated-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Subject {
  store: EmulatedProxyStore;
  /** The Proxy `ns1/p1`, as stored. */
  key: string;
  /** Takes the Proxy out of the desired state the store's own way. */
  drop(): Promise<void>;
}

// Both stores that emulate the API server must follow its rules alike: the reconciler was
// written against them, and standalone mode runs it over the file store.
const subjects: [string, () => Promise<Subject>][] = [
  [
    'MemoryProxyStore',
    async () => {
      const store = new MemoryProxyStore();
      store.put(newProxy());
      return { store, key: 'ns1/p1', drop: async () => store.delete('ns1/p1') };
    },
  ],
  [
    'FileProxyStore',
    async () => {
      const sub = mkdtempSync(join(dir, 'file-'));
      const file = join(sub, 'proxies.yaml');
      writeFileSync(
        file,
        'apiVersion: egress-proxies.dev/v1alpha1\nkind: Proxy\nmetadata: {name: p1, namespace: ns1}\nspec: {provider: local}\n',
      );
      // Changes are applied by explicit rescans only: no watcher timing in these tests.
      const store = new FileProxyStore({
        paths: [file],
        stateDir: join(sub, 'state'),
        installation: 'inst-1',
        rescanMs: 3_600_000,
        debounceMs: 3_600_000,
      });
      await store.start();
      return {
        store,
        key: 'ns1/p1',
        drop: async () => {
          writeFileSync(file, '');
          await store.rescan();
        },
      };
    },
  ],
];

describe.each(subjects)('%s follows the API server rules', (_name, make) => {
  it('moves resourceVersion on with every write, tells listeners, and hands out copies', async () => {
    const { store, key } = await make();
    const seen: string[] = [];
    store.onChange((k) => seen.push(k));
    const before = Number(store.get(key)?.metadata.resourceVersion);
    const written = await store.updateStatus(store.get(key)!, { phase: 'Pending' });
    expect(Number(written.metadata.resourceVersion)).toBe(before + 1);
    const again = await store.addFinalizer(written, FINALIZER);
    expect(Number(again.metadata.resourceVersion)).toBe(before + 2);
    expect(seen).toEqual([key, key]);
    written.status = { phase: 'Failed' };
    expect(store.get(key)?.status?.phase).toBe('Pending');
    await store.stop();
  });

  it('refuses writes to a Proxy it does not hold with a 404 naming it', async () => {
    const { store } = await make();
    const ghost = newProxy({}, 'ghost');
    await expect(store.updateStatus(ghost, { phase: 'Ready' })).rejects.toMatchObject({
      code: 404,
      message: 'ns1/ghost not found',
    });
    await expect(store.addFinalizer(ghost, FINALIZER)).rejects.toMatchObject({ code: 404 });
    await expect(store.removeFinalizer(ghost, FINALIZER)).resolves.toBeUndefined();
    await store.stop();
  });

  it('holds a deletion until the last finalizer goes, keeping the first deletionTimestamp', async () => {
    const { store, key, drop } = await make();
    await store.addFinalizer(store.get(key)!, FINALIZER);
    await store.addFinalizer(store.get(key)!, FINALIZER);
    expect(store.get(key)?.metadata.finalizers).toEqual([FINALIZER]);
    await store.addFinalizer(store.get(key)!, 'other.example/hold');
    await drop();
    const since = store.get(key)?.metadata.deletionTimestamp;
    expect(since).toBeDefined();
    await new Promise((r) => setTimeout(r, 5));
    await drop();
    expect(store.get(key)?.metadata.deletionTimestamp).toBe(since);
    await store.removeFinalizer(store.get(key)!, FINALIZER);
    expect(store.get(key)?.metadata.finalizers).toEqual(['other.example/hold']);
    await store.removeFinalizer(store.get(key)!, 'other.example/hold');
    expect(store.get(key)).toBeUndefined();
    await store.stop();
  });

  it('removes a Proxy that no finalizer holds at once', async () => {
    const { store, key, drop } = await make();
    const seen: string[] = [];
    store.onChange((k) => seen.push(k));
    await drop();
    expect(store.get(key)).toBeUndefined();
    expect(store.list()).toEqual([]);
    expect(seen).toEqual([key]);
    await store.stop();
  });
});
