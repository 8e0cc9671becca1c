import { ErrorCode, ErrorKind, ProviderError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { testController, until } from '../../../test/support/controller-fixture.js';
import {
  newProxy,
  placement,
  referenceHandle,
  withOverrides,
} from '../../../test/support/reconcile-fixture.js';
import type { ProviderHandle } from '../reconcile/types.js';
import type { MemoryProxyStore } from '../store/memory-proxy-store.js';
import { deadlineCall, deadlineOf, withDeadline } from './call-deadline.js';

/**
 * A provider whose creates hang while `hang` is set, as a backend call that never answers:
 * `deaf` ones never look at their signal either (a `timeouts: ctx-only` provider whose call
 * underneath cannot be cancelled), the others reject with the signal's reason.
 */
function hangingCreates(name: string, opts: { deaf?: boolean } = {}) {
  const { handle, backend } = referenceHandle(name);
  const ctl = { hang: true, calls: 0, reasons: [] as unknown[], requests: [] as unknown[] };
  const h = withOverrides(handle, {
    create: async (inner, req, o) => {
      ctl.calls++;
      ctl.requests.push(req);
      if (!ctl.hang) return inner(req, o);
      return new Promise<string>((_resolve, reject) => {
        o?.signal?.addEventListener('abort', () => {
          ctl.reasons.push(o.signal?.reason);
          if (!opts.deaf) reject(o.signal?.reason);
        });
      });
    },
  });
  return { handle: h, backend, ctl };
}

const TIERS = { transient: { baseMs: 20, maxMs: 100 }, quota: { baseMs: 20, maxMs: 100 } };
const controller = (handles: ProviderHandle[], extra: Parameters<typeof testController>[1] = {}) =>
  testController(handles, { workers: 2, tiers: TIERS, ...extra });

const status = (store: MemoryProxyStore, name: string) => store.get(`ns1/${name}`)?.status;

describe('call deadlines', () => {
  it('names the deadline and where it was set; a provider entry overrides --create-timeout', () => {
    const h = { name: 'kvm-home' };
    expect(deadlineOf(h, 'create', {})).toEqual({ ms: 30 * 60_000, source: '--create-timeout' });
    expect(deadlineOf(h, 'get', {})).toEqual({ ms: 2 * 60_000, source: '--call-timeout' });
    expect(deadlineOf(h, 'listByTag', { callMs: 5000 }).ms).toBe(5000);
    expect(deadlineOf({ ...h, createTimeoutMs: 3_600_000 }, 'create', { createMs: 60_000 })).toEqual({
      ms: 3_600_000,
      source: 'createTimeout of provider kvm-home',
    });
  });

  it('ends a call that never answers and ignores its signal: Transient TIMEOUT naming the deadline, the signal aborted', async () => {
    let seen: AbortSignal | undefined;
    const err = await withDeadline(
      { provider: 'p', operation: 'create', ms: 30, source: '--create-timeout' },
      undefined,
      (s) => {
        seen = s;
        return new Promise<never>(() => {});
      },
    ).catch((e: unknown) => e);
    expect(ProviderError.isInstance(err)).toBe(true);
    const e = err as ProviderError;
    expect([e.kind, e.code, e.provider, e.operation]).toEqual([
      ErrorKind.Transient,
      ErrorCode.Timeout,
      'p',
      'create',
    ]);
    expect(e.message).toContain('no answer within the 30ms deadline of a create (--create-timeout)');
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBeInstanceOf(DOMException);
    expect(seen?.reason).toHaveProperty('name', 'TimeoutError');
  });

  it('passes the caller abort through as it is, and a call that answers in time untouched', async () => {
    const ac = new AbortController();
    let inner: AbortSignal | undefined;
    const p = withDeadline({ provider: 'p', operation: 'get', ms: 60_000, source: 'x' }, ac.signal, (s) => {
      inner = s;
      return new Promise<never>(() => {});
    }).catch((e: unknown) => e);
    const reason = new DOMException('operator stopping', 'AbortError');
    ac.abort(reason);
    expect(await p).toBe(reason);
    expect(inner?.reason).toBe(reason);
    const call = deadlineCall(async (_h, _op, fn, signal) => fn({ ...(signal ? { signal } : {}) }), {
      callMs: 1000,
    });
    const { handle } = referenceHandle('ref');
    expect(await call(handle, 'get', async () => 7)).toBe(7);
  });

  it('a create that hangs (deaf to its signal) is ended at --create-timeout, retried with backoff, and the Proxy gets Ready once the backend answers', async () => {
    const hanging = hangingCreates('ref', { deaf: true });
    const { store, c } = controller([hanging.handle], { deadlines: { createMs: 150 } });
    store.put(newProxy({}, 'stuck'));
    c.start();
    await until('two creates ended by the deadline', () => hanging.ctl.reasons.length >= 2);
    const s = status(store, 'stuck');
    expect(s?.phase).toBe('Provisioning');
    expect(s?.message).toMatch(
      /no answer within the 150ms deadline of a create \(--create-timeout\); the call was aborted/,
    );
    expect(s?.conditions?.find((x) => x.type === 'Provisioned')?.reason).toBe('TransientError');
    expect((hanging.ctl.reasons[0] as Error).name).toBe('TimeoutError');
    hanging.ctl.hang = false;
    await until('Ready', () => status(store, 'stuck')?.phase === 'Ready');
    expect(hanging.backend.domains()).toHaveLength(1);
    await c.stop();
  });

  it('a provider entry createTimeout overrides --create-timeout', async () => {
    const hanging = hangingCreates('ref');
    const handle = { ...hanging.handle, createTimeoutMs: 100 };
    const { store, c } = controller([handle], { deadlines: { createMs: 600_000 } });
    store.put(newProxy({}, 'entry'));
    c.start();
    await until('the create ended by the entry deadline', () => hanging.ctl.reasons.length >= 1);
    await until('status names it', () =>
      /createTimeout of provider ref/.test(status(store, 'entry')?.message ?? ''),
    );
    hanging.ctl.hang = false;
    await until('Ready', () => status(store, 'entry')?.phase === 'Ready');
    await c.stop();
  });

  it('a get that hangs is ended at --call-timeout and retried', async () => {
    const { handle } = referenceHandle('ref');
    let hangs = 1;
    const h = withOverrides(handle, {
      get: async (inner, id, o) => (hangs-- > 0 ? new Promise<never>(() => {}) : inner(id, o)),
    });
    const { store, c } = controller([h], { deadlines: { callMs: 100 } });
    store.put(newProxy({}, 'slowget'));
    c.start();
    await until('Ready after the hung get', () => status(store, 'slowget')?.phase === 'Ready');
    expect(hangs).toBeLessThan(0);
    await c.stop();
  });

  it('a spec change aborts the hanging create after the grace, and the new spec is created', async () => {
    const hanging = hangingCreates('ref');
    // The create deadline only ends a create that starts before the backend answers again.
    const { store, c } = controller([hanging.handle], { abortGraceMs: 100, deadlines: { createMs: 400 } });
    store.put(newProxy({}, 'edited'));
    c.start();
    await until('create started', () => hanging.ctl.calls === 1);
    store.put(newProxy({ placement: { ...placement, machineType: 'medium' } }, 'edited'));
    await until('status says the create is aborted soon', () =>
      /the spec changed while proxy-\w+ was being created: the create for the earlier spec is aborted at /.test(
        status(store, 'edited')?.message ?? '',
      ),
    );
    await until('the first create aborted', () => hanging.ctl.reasons.length >= 1);
    expect((hanging.ctl.reasons[0] as Error).name).toBe('AbortError');
    expect((hanging.ctl.reasons[0] as Error).message).toMatch(/spec of the Proxy changed/);
    hanging.ctl.hang = false;
    await until('Ready', () => status(store, 'edited')?.phase === 'Ready');
    const last = hanging.ctl.requests.at(-1) as { placement: { machineType: string } };
    expect(last.placement.machineType).toBe('medium');
    expect(store.events.map((e) => e.reason)).toContain('CreateAborted');
    expect(hanging.backend.domains()).toHaveLength(1);
    await c.stop();
  });

  it('a delete aborts the hanging create after the grace, then learns what it made and deletes it', async () => {
    const hanging = hangingCreates('ref');
    const { store, c } = controller([hanging.handle], { abortGraceMs: 100, deadlines: { createMs: 400 } });
    store.put(newProxy({}, 'gone'));
    c.start();
    await until('create started', () => hanging.ctl.calls === 1);
    store.delete('ns1/gone');
    await until('the create aborted', () => hanging.ctl.reasons.length >= 1);
    expect((hanging.ctl.reasons[0] as Error).message).toMatch(/being deleted/);
    hanging.ctl.hang = false;
    await until('the Proxy is gone', () => store.get('ns1/gone') === undefined);
    // The create run again to learn what the aborted one made is never aborted by the deletion
    // (only its own deadline can end it).
    const aborts = hanging.ctl.reasons.filter((r) => (r as Error).name === 'AbortError');
    expect(aborts).toHaveLength(1);
    expect(hanging.backend.domains()).toHaveLength(0);
    await c.stop();
  });
});
