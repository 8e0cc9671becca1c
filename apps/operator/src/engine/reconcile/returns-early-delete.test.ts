import { InstanceState } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { Driver, newProxy, referenceHandle, withOverrides } from '../../../test/support/reconcile-fixture.js';
import { FINALIZER } from '../../api/group.js';

/**
 * A provider whose delete returns once submitted (gcp, kubernetes): the machine stays visible to
 * get for a while, and the submitted delete can fail on the backend after it was accepted.
 */
function returnsEarly() {
  const { handle, backend } = referenceHandle();
  const ctl = { visibleFor: 2, failNextDelete: false, deletes: 0 };
  const h = withOverrides(handle, {
    delete: async (inner, id, o) => {
      ctl.deletes++;
      if (ctl.failNextDelete) {
        // Accepted, then failed on the backend: the machine keeps running.
        ctl.failNextDelete = false;
        return;
      }
      await inner(id, o);
    },
    get: async (inner, id, o) => {
      try {
        return await inner(id, o);
      } catch (err) {
        if (ctl.visibleFor-- > 0) return { id, uid: '', state: InstanceState.Running, ip: '192.0.2.77' };
        throw err;
      }
    },
  });
  return { handle: h, backend, ctl };
}

describe('reconcileProxy: deletes that return early', () => {
  it('keeps the finalizer until get answers NotFound', async () => {
    const { handle, ctl } = returnsEarly();
    const d = new Driver(newProxy(), [handle]);
    await d.until('Ready');
    ctl.visibleFor = 2;
    d.proxy.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    const first = await d.step();
    expect(first.finalizer).toBeUndefined();
    expect(first.requeue).toEqual({ type: 'after', ms: 1000 });
    expect(d.proxy.metadata.finalizers).toContain(FINALIZER);
    expect(d.proxy.status?.message).toMatch(/waiting until the provider no longer finds it/);
    expect((await d.step()).finalizer).toBeUndefined();
    expect((await d.step()).finalizer).toBe('remove');
    expect(d.reasons().filter((r) => r === 'Deleted')).toHaveLength(1);
  });

  it('submits the delete again when the accepted one failed on the backend', async () => {
    const { handle, backend, ctl } = returnsEarly();
    const d = new Driver(newProxy(), [handle]);
    await d.until('Ready');
    ctl.visibleFor = 0;
    ctl.failNextDelete = true;
    d.proxy.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    // The first delete did nothing: the domain is still there, so the finalizer stays.
    expect((await d.step()).finalizer).toBeUndefined();
    expect(backend.domains()).toHaveLength(1);
    expect((await d.step()).finalizer).toBe('remove');
    expect(backend.domains()).toHaveLength(0);
    expect(ctl.deletes).toBe(2);
  });

  it('backs off when get cannot say whether the instance is gone', async () => {
    const { handle } = referenceHandle();
    let fail = true;
    const h = withOverrides(handle, {
      get: async (inner, id, o) => {
        if (fail) throw new Error('connection reset');
        return inner(id, o);
      },
    });
    const d = new Driver(newProxy(), [handle]);
    await d.until('Ready');
    d.handles.set('ref', h);
    d.proxy.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    const r = await d.step();
    expect(r.finalizer).toBeUndefined();
    expect(r.requeue).toEqual({ type: 'backoff', tier: 'transient' });
    fail = false;
    expect((await d.step()).finalizer).toBe('remove');
  });
});
