import { quotaExceededError, transientError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { testController, until } from '../../../test/support/controller-fixture.js';
import { newProxy, referenceHandle, withOverrides } from '../../../test/support/reconcile-fixture.js';

describe('backoff between failed creates', () => {
  it('spaces creates by the documented backoff: the status write of a failure does not re-queue the Proxy at once', async () => {
    const { handle, backend } = referenceHandle('ref');
    // Three Transient failures, then two QuotaExceeded ones, then success.
    const answers = ['transient', 'transient', 'transient', 'quota', 'quota'];
    const at: number[] = [];
    const h = withOverrides(handle, {
      create: async (inner, req, o) => {
        at.push(performance.now());
        const a = answers.shift();
        if (a === 'transient') throw transientError('backend busy', { code: 'BACKEND_BUSY' });
        if (a === 'quota') throw quotaExceededError('no capacity left', { code: 'QUOTA_EXCEEDED' });
        return inner(req, o);
      },
    });
    const transient = { baseMs: 100, maxMs: 10_000 };
    const quota = { baseMs: 300, maxMs: 10_000 };
    const { store, c } = testController([h], { tiers: { transient, quota } });
    store.put(newProxy({}, 'counted'));
    c.start();
    await until('Ready', () => store.get('ns1/counted')?.status?.phase === 'Ready');
    await c.stop();
    expect(at).toHaveLength(6);
    expect(backend.domains()).toHaveLength(1);
    const gaps = at.slice(1).map((t, i) => t - (at[i] as number));
    // Each failure waits its tier's base times 2^(failures of that tier so far): the backoff
    // grows while creates keep failing (a pass that only starts a create is no success). A timer
    // may fire a millisecond early, hence the small allowance.
    const wanted = [
      transient.baseMs,
      transient.baseMs * 2,
      transient.baseMs * 4,
      quota.baseMs,
      quota.baseMs * 2,
    ];
    for (const [i, w] of wanted.entries()) {
      expect(gaps[i], `gap ${i + 1} (${gaps.map(Math.round).join(', ')} ms)`).toBeGreaterThanOrEqual(w - 2);
    }
  });

  it('holds the backoff when something else queues the Proxy meanwhile (a provider notice, a label change)', async () => {
    const { handle } = referenceHandle('ref');
    const answers = ['quota', 'quota', 'transient'];
    const at: number[] = [];
    const h = withOverrides(handle, {
      create: async (inner, req, o) => {
        at.push(performance.now());
        const a = answers.shift();
        if (a === 'transient') throw transientError('backend busy', { code: 'BACKEND_BUSY' });
        if (a === 'quota') throw quotaExceededError('no capacity left', { code: 'QUOTA_EXCEEDED' });
        return inner(req, o);
      },
    });
    const transient = { baseMs: 200, maxMs: 10_000 };
    const quota = { baseMs: 300, maxMs: 10_000 };
    const { store, c } = testController([h], { tiers: { transient, quota } });
    store.put(newProxy({}, 'poked'));
    c.start();
    // Poke the key every 20 ms while it backs off: none of these may start a create early.
    let n = 0;
    const poke = setInterval(() => {
      c.enqueueProviders(['ref']);
      const p = store.get('ns1/poked');
      if (p && n++ % 3 === 0) store.put({ ...p, metadata: { ...p.metadata, labels: { poke: String(n) } } });
    }, 20);
    try {
      await until('Ready', () => store.get('ns1/poked')?.status?.phase === 'Ready');
    } finally {
      clearInterval(poke);
      await c.stop();
    }
    expect(at).toHaveLength(4);
    const gaps = at.slice(1).map((t, i) => t - (at[i] as number));
    const wanted = [quota.baseMs, quota.baseMs * 2, transient.baseMs];
    for (const [i, w] of wanted.entries()) {
      expect(gaps[i], `gap ${i + 1} (${gaps.map(Math.round).join(', ')} ms)`).toBeGreaterThanOrEqual(w - 2);
    }
  });
});
