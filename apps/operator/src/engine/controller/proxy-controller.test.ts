import { describe, expect, it } from 'vitest';
import { newProxy, referenceHandle } from '../../../test/support/reconcile-fixture.js';
import { FINALIZER } from '../../api/group.js';
import type { ProbeFn } from '../reconcile/types.js';
import { MemoryProxyStore } from '../store/memory-proxy-store.js';
import { ProxyController } from './proxy-controller.js';

const ok: ProbeFn = async () => ({ ok: true, latencyMs: 1, egressIP: '198.51.100.4' });

async function until(what: string, fn: () => boolean, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function setup(probe: ProbeFn = ok) {
  const { handle, backend } = referenceHandle();
  const store = new MemoryProxyStore();
  const providers = { get: (n: string) => (n === 'ref' ? handle : undefined), names: () => ['ref'] };
  const c = new ProxyController({
    store,
    providers,
    installation: 'install-A',
    probe,
    workers: 3,
    pollIntervalMs: 5,
    rateLimiter: {
      jitter: 0,
      tiers: { transient: { baseMs: 5, maxMs: 50 }, quota: { baseMs: 10, maxMs: 50 } },
    },
  });
  return { store, c, backend, handle };
}

describe('ProxyController', () => {
  it('brings many Proxies to Ready with several workers and removes them on delete', async () => {
    const { store, c, backend } = setup();
    for (let i = 0; i < 20; i++) store.put(newProxy({ probe: { target: 'http://t/ip' } }, `p${i}`));
    c.start();
    await until('all Ready', () => store.list().every((p) => p.status?.phase === 'Ready'));
    expect(backend.domains()).toHaveLength(20);
    expect(store.list().every((p) => p.metadata.finalizers?.includes(FINALIZER))).toBe(true);
    expect(store.list().every((p) => p.status?.egressIP === '198.51.100.4')).toBe(true);
    for (const p of store.list()) store.delete(`${p.metadata.namespace}/${p.metadata.name}`);
    await until('all gone', () => store.list().length === 0);
    expect(backend.domains()).toHaveLength(0);
    await c.stop();
    expect(c.queue.inFlight).toBe(0);
  });

  it('writes nothing when a settled Proxy is reconciled again', async () => {
    const { store, c } = setup();
    store.put(newProxy({}, 'quiet'));
    c.start();
    await until('Ready', () => store.get('ns1/quiet')?.status?.phase === 'Ready');
    const writes = store.statusWrites;
    await c.processKey('ns1/quiet');
    await c.processKey('ns1/quiet');
    expect(store.statusWrites).toBe(writes);
    await c.stop();
  });

  it('re-queues the Proxies of a changed provider', async () => {
    const { store, c } = setup();
    store.put(newProxy({ provider: 'ref' }, 'a'));
    store.put(newProxy({ provider: 'other' }, 'b'));
    c.enqueueProviders(['other']);
    expect(c.queue.length).toBe(1);
    expect(await c.queue.get()).toBe('ns1/b');
  });

  it('retries a failing reconcile with backoff until it succeeds', async () => {
    const { store, c, backend } = setup();
    backend.failNext('define', 3, 'UNREACHABLE');
    store.put(newProxy({}, 'flaky'));
    c.start();
    await until('Ready', () => store.get('ns1/flaky')?.status?.phase === 'Ready');
    expect(c.queue.numRequeues('ns1/flaky')).toBe(0);
    await c.stop();
  });
});
