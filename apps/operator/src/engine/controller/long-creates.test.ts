import { loggerOf } from '@egress-proxies/provider-utils';
import { describe, expect, it } from 'vitest';
import { testController, until } from '../../../test/support/controller-fixture.js';
import { newProxy, referenceHandle, withOverrides } from '../../../test/support/reconcile-fixture.js';
import type { ProviderHandle } from '../reconcile/types.js';
import type { MemoryProxyStore } from '../store/memory-proxy-store.js';

/** A provider whose creates wait for the test to let them finish, counting how many run at once. */
function slowCreates(name: string) {
  const { handle, backend } = referenceHandle(name);
  const ctl = { running: 0, peak: 0, calls: 0, aborted: 0, release: [] as Array<() => void> };
  const h = withOverrides(handle, {
    create: async (inner, req, o) => {
      ctl.calls++;
      ctl.running++;
      ctl.peak = Math.max(ctl.peak, ctl.running);
      try {
        await new Promise<void>((resolve, reject) => {
          ctl.release.push(resolve);
          o?.signal?.addEventListener('abort', () => {
            ctl.aborted++;
            reject(o.signal?.reason);
          });
        });
        return await inner(req, o);
      } finally {
        ctl.running--;
      }
    },
  });
  const releaseAll = () => {
    for (const r of ctl.release.splice(0)) r();
  };
  return { handle: h, backend, ctl, releaseAll };
}

const TIERS = { transient: { baseMs: 5, maxMs: 50 }, quota: { baseMs: 10, maxMs: 50 } };
const controller = (handles: ProviderHandle[], extra: Parameters<typeof testController>[1] = {}) =>
  testController(handles, { tiers: TIERS, ...extra });

const phase = (store: MemoryProxyStore, name: string) => store.get(`ns1/${name}`)?.status?.phase;

describe('ProxyController: long blocking creates', () => {
  it('lets a create outlive the pass deadline: one call, never aborted', async () => {
    const slow = slowCreates('ref');
    const { store, c } = controller([slow.handle], { workers: 1, reconcileTimeoutMs: 50 });
    store.put(newProxy({}, 'big-image'));
    c.start();
    await until('create started', () => slow.ctl.calls === 1);
    // Well past the pass deadline, the create is still the first one and still running.
    await new Promise((r) => setTimeout(r, 300));
    expect(slow.ctl.aborted).toBe(0);
    expect(store.get('ns1/big-image')?.status?.message).toMatch(
      /^creating proxy-\w+ through provider ref since /,
    );
    slow.releaseAll();
    await until('Ready', () => phase(store, 'big-image') === 'Ready');
    expect(slow.ctl.calls).toBe(1);
    await c.stop();
  });

  it('cuts a call of the pass itself (a get) at the pass deadline with a TimeoutError, and retries', async () => {
    const { handle } = referenceHandle('ref');
    let hang = true;
    let cut: unknown;
    const h = withOverrides(handle, {
      get: async (inner, id, o) => {
        if (!hang) return inner(id, o);
        return new Promise((_r, reject) =>
          o?.signal?.addEventListener('abort', () => {
            cut = o.signal?.reason;
            hang = false;
            reject(o.signal?.reason);
          }),
        );
      },
    });
    const { store, c } = controller([h], { workers: 1, reconcileTimeoutMs: 100 });
    store.put(newProxy({}, 'slowget'));
    c.start();
    await until('Ready after the cut get', () => phase(store, 'slowget') === 'Ready');
    expect((cut as Error).name).toBe('TimeoutError');
    await c.stop();
  });

  it('holds no worker while a create runs: other Proxies reach Ready meanwhile', async () => {
    const slow = slowCreates('slow');
    const fast = referenceHandle('fast');
    const { store, c } = controller([slow.handle, fast.handle], { workers: 1 });
    store.put(newProxy({ provider: 'slow' }, 'a'));
    c.start();
    await until('slow create started', () => slow.ctl.calls === 1);
    for (let i = 0; i < 3; i++) store.put(newProxy({ provider: 'fast' }, `f${i}`));
    await until('fast ones Ready', () => [0, 1, 2].every((i) => phase(store, `f${i}`) === 'Ready'));
    expect(phase(store, 'a')).toBe('Provisioning');
    slow.releaseAll();
    await until('slow one Ready', () => phase(store, 'a') === 'Ready');
    await c.stop();
  });

  it('runs at most the configured number of creates of one provider at once and says who waits', async () => {
    const slow = slowCreates('ref');
    const { store, c } = controller([slow.handle], { workers: 4, createConcurrency: 2 });
    for (let i = 0; i < 6; i++) store.put(newProxy({}, `p${i}`));
    c.start();
    await until('two running, four queued', () => slow.ctl.running === 2 && c.creates.inFlight('ref') === 6);
    await until(
      'queued ones say so',
      () =>
        store
          .list()
          .filter((p) => /is queued behind \d+ other creates of provider ref/.test(p.status?.message ?? ''))
          .length === 4,
    );
    const queued = store.list().find((p) => p.status?.conditions?.some((x) => x.reason === 'CreateQueued'));
    expect(queued).toBeDefined();
    while (store.list().some((p) => p.status?.phase !== 'Ready')) {
      slow.releaseAll();
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(slow.ctl.peak).toBe(2);
    expect(slow.ctl.calls).toBe(6);
    expect(slow.backend.domains()).toHaveLength(6);
    await c.stop();
  });

  it('lets a create in flight finish when its Proxy is deleted, then deletes what it made', async () => {
    const slow = slowCreates('ref');
    const { store, c } = controller([slow.handle], { workers: 2 });
    store.put(newProxy({}, 'gone'));
    c.start();
    await until('create started', () => slow.ctl.calls === 1);
    store.delete('ns1/gone');
    await until('deletion waits for the create', () =>
      /waiting for the create in flight to finish/.test(store.get('ns1/gone')?.status?.message ?? ''),
    );
    slow.releaseAll();
    await until('Proxy gone', () => store.get('ns1/gone') === undefined);
    expect(slow.ctl.aborted).toBe(0);
    expect(slow.backend.domains()).toHaveLength(0);
    expect(store.events.filter((e) => e.key === 'ns1/gone').map((e) => e.reason)).toContain('Deleted');
    await c.stop();
  });

  it('drops a queued create of a deleted Proxy without calling the provider', async () => {
    const slow = slowCreates('ref');
    const { store, c } = controller([slow.handle], { workers: 2, createConcurrency: 1 });
    store.put(newProxy({}, 'first'));
    c.start();
    await until('first create running', () => slow.ctl.calls === 1);
    store.put(newProxy({}, 'queued'));
    await until('second create queued', () => c.creates.peek('ns1/queued')?.state === 'queued');
    store.delete('ns1/queued');
    await until('queued Proxy gone', () => store.get('ns1/queued') === undefined);
    slow.releaseAll();
    await until('first Ready', () => phase(store, 'first') === 'Ready');
    expect(slow.ctl.calls).toBe(1);
    expect(slow.backend.domains().map((d) => d.name)).toHaveLength(1);
    await c.stop();
  });

  it('after a restart, finishes a create the last process left halfway and deletes it with its Proxy', async () => {
    const { handle, backend } = referenceHandle('ref');
    let hold = true;
    let made = 0;
    // The instance exists on the backend before create returns (a blocking create killed midway).
    const h = withOverrides(handle, {
      create: async (inner, req, o) => {
        const id = await inner(req, o);
        made++;
        if (hold)
          await new Promise((_r, reject) =>
            o?.signal?.addEventListener('abort', () => reject(o.signal?.reason)),
          );
        return id;
      },
    });
    const first = controller([h], { workers: 1 });
    first.store.put(newProxy({}, 'half'));
    first.c.start();
    await until('instance made, create not returned', () => made === 1);
    // The process stops (every call in flight aborted): the status keeps the pending create.
    await first.c.stop(0);
    const left = first.store.get('ns1/half')!;
    expect(left.status?.providerID).toBeUndefined();
    expect(left.status?.pendingCreate?.provider).toBe('ref');
    expect(backend.domains()).toHaveLength(1);
    first.store.delete('ns1/half');
    hold = false;
    // A fresh controller over the same store, as after a restart or a leader handover.
    const second = testController([h], { store: first.store }).c;
    second.start();
    await until('Proxy gone', () => first.store.get('ns1/half') === undefined);
    expect(backend.domains()).toHaveLength(0);
    expect(made).toBe(2);
    await second.stop();
  });

  it("queues the create that settles an earlier process's create behind a busy provider instead of cancelling it", async () => {
    const { handle, backend } = referenceHandle('ref');
    let hold = true;
    const h = withOverrides(handle, {
      create: async (inner, req, o) => {
        const id = await inner(req, o);
        if (hold && req.proxyName === 'half')
          await new Promise((_r, reject) =>
            o?.signal?.addEventListener('abort', () => reject(o.signal?.reason)),
          );
        return id;
      },
    });
    const first = controller([h], { workers: 1 });
    first.store.put(newProxy({}, 'half'));
    first.c.start();
    await until('instance made', () => backend.domains().length === 1);
    await first.c.stop(0);
    hold = false;
    // The next process: one create holds the only slot; the deleted Proxy's settling create waits.
    const second = testController([h], { store: first.store, blockedRetryMs: 5, createConcurrency: 1 }).c;
    const started: string[] = [];
    const start = second.creates.start.bind(second.creates);
    second.creates.start = (key, meta, run) => {
      started.push(key);
      return start(key, meta, run);
    };
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    second.creates.start('ns1/blocker', { provider: 'ref', token: 't', hash: 'h' }, async () => {
      await gate;
      return 'x';
    });
    first.store.delete('ns1/half');
    second.start();
    await until('the settling create queued', () => second.creates.peek('ns1/half')?.state === 'queued');
    await new Promise((r) => setTimeout(r, 100));
    // Queued once and left there: not cancelled and started again pass after pass.
    expect(started.filter((k) => k === 'ns1/half')).toHaveLength(1);
    release();
    await until('Proxy gone', () => first.store.get('ns1/half') === undefined);
    expect(backend.domains()).toHaveLength(0);
    await second.stop();
  });

  it('shows the progress a create logs in the Proxy status, throttled, and drops it when the create ends', async () => {
    const { handle } = referenceHandle('ref');
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let step!: (percent: number) => void;
    const h = withOverrides(handle, {
      create: async (inner, req, o) => {
        const log = loggerOf(o);
        step = (percent) => log.log(1, 'image download progress', { percent, bytes: percent, total: 100 });
        step(10);
        await gate;
        return inner(req, o);
      },
    });
    const { store, c } = controller([h], { workers: 1, createProgressIntervalMs: 30 });
    store.put(newProxy({}, 'dl'));
    c.start();
    const status = () => store.get('ns1/dl')?.status;
    await until(
      'first progress in status',
      () => status()?.progress === 'image download 10% (10 B of 100 B)',
    );
    const cond = status()?.conditions?.find((x) => x.type === 'Provisioned');
    expect(cond?.reason).toBe('Creating');
    expect(cond?.message).toMatch(/^creating proxy-\w+ through provider ref since \S+: image download 10%/);
    expect(status()?.message).not.toContain('%');
    const writes = store.statusWrites;
    for (let p = 11; p <= 60; p++) step(p);
    await until(
      'latest progress in status',
      () => status()?.progress?.startsWith('image download 60%') === true,
    );
    // Fifty reports, a handful of status writes: progress is passed on at most once an interval.
    expect(store.statusWrites - writes).toBeLessThan(10);
    release();
    await until('Ready', () => phase(store, 'dl') === 'Ready');
    expect(status()?.progress).toBeUndefined();
    expect(status()?.pendingCreate).toBeUndefined();
    await c.stop();
  });
});
