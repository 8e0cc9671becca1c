import { describe, expect, it } from 'vitest';
import { newProxy, referenceHandle, withOverrides } from '../../../test/support/reconcile-fixture.js';
import type { ProxyObject } from '../../api/proxy.js';
import { MemoryProxyStore } from '../store/memory-proxy-store.js';
import { type ProxyKey, proxyKey } from '../store/proxy-store.js';
import { ProxyController } from './proxy-controller.js';

/** A cache that lags: for a while after a Proxy is gone it still hands back the last copy it had. */
class LaggingStore extends MemoryProxyStore {
  readonly stale = new Map<ProxyKey, ProxyObject>();
  override get(key: ProxyKey): ProxyObject | undefined {
    return super.get(key) ?? this.stale.get(key);
  }
  override async removeFinalizer(proxy: ProxyObject, finalizer: string): Promise<void> {
    const before = super.get(proxyKey(proxy));
    await super.removeFinalizer(proxy, finalizer);
    if (before && !super.get(proxyKey(proxy))) this.stale.set(proxyKey(proxy), structuredClone(before));
  }
}

async function until(what: string, fn: () => boolean, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('ProxyController: the cache after a finalizer is removed', () => {
  it('does not act on the stale copy of a Proxy it finished deleting', async () => {
    const { handle } = referenceHandle('ref');
    const calls = { create: 0, delete: 0 };
    const h = withOverrides(handle, {
      create: async (inner, req, o) => {
        calls.create++;
        return inner(req, o);
      },
      delete: async (inner, id, o) => {
        calls.delete++;
        return inner(id, o);
      },
    });
    const store = new LaggingStore();
    const c = new ProxyController({
      store,
      providers: { get: (n) => (n === h.name ? h : undefined), names: () => [h.name] },
      installation: 'install-A',
      probe: async () => ({ ok: true, latencyMs: 1 }),
      pollIntervalMs: 5,
    });
    const key: ProxyKey = 'ns1/short-lived';
    store.put(newProxy({}, 'short-lived'));
    c.start();
    await until('Ready', () => store.get(key)?.status?.phase === 'Ready');
    store.delete(key);
    await until('the finalizer removed', () => store.stale.has(key));
    await c.stop();
    expect(calls).toEqual({ create: 1, delete: 1 });
    // The cache still shows it being deleted, finalizer and all: nothing more is done for it.
    expect(store.get(key)?.metadata.finalizers?.length).toBeGreaterThan(0);
    expect(await c.processKey(key)).toBeUndefined();
    expect(calls).toEqual({ create: 1, delete: 1 });
  });
});
