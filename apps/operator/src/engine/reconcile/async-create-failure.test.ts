import { permanentError, quotaExceededError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { Driver, newProxy, referenceHandle, withOverrides } from '../../../test/support/reconcile-fixture.js';

/**
 * A provider whose create returns once the insert is submitted (gcp): the insert can fail on the
 * backend afterwards, and get then answers with that failure for the id create returned.
 */
function submitStyle() {
  const { handle, backend } = referenceHandle();
  const ctl = { nextAsync: undefined as 'quota' | 'permanent' | undefined, creates: 0 };
  const failed = new Map<string, Error>();
  const h = withOverrides(handle, {
    create: async (inner, req, o) => {
      ctl.creates++;
      const mode = ctl.nextAsync;
      ctl.nextAsync = undefined;
      const id = `hosts/alpha/domains/${req.name}`;
      // A new insert replaces the failed one: get reads the newest.
      failed.delete(id);
      if (!mode) return inner(req, o);
      failed.set(
        id,
        mode === 'quota'
          ? quotaExceededError('operation op-1 (insert) failed: ZONE_RESOURCE_POOL_EXHAUSTED')
          : permanentError('operation op-1 (insert) failed: image not found', { code: 'OPERATION_FAILED' }),
      );
      return id;
    },
    get: async (inner, id, o) => {
      const err = failed.get(id);
      if (err) throw err;
      return inner(id, o);
    },
  });
  return { handle: h, backend, ctl };
}

describe('reconcileProxy: async create failures', () => {
  it('creates again after a quota backoff when the submitted insert failed', async () => {
    const { handle, ctl, backend } = submitStyle();
    const d = new Driver(newProxy(), [handle]);
    ctl.nextAsync = 'quota';
    await d.step(); // finalizer
    await d.step(); // create (accepted)
    expect(ctl.creates).toBe(1);
    const failedPass = await d.step();
    expect(failedPass.requeue).toEqual({ type: 'backoff', tier: 'quota' });
    expect(d.proxy.status?.providerID).toBeUndefined();
    expect(d.proxy.status?.message).toMatch(/failed after it was accepted.*ZONE_RESOURCE_POOL_EXHAUSTED/);
    await d.until('Ready', 12);
    expect(ctl.creates).toBe(2);
    expect(backend.domains()).toHaveLength(1);
  });

  it('latches an async Permanent failure, and a config change leads to a new create', async () => {
    const { handle, ctl } = submitStyle();
    const d = new Driver(newProxy(), [handle]);
    ctl.nextAsync = 'permanent';
    await d.until('Failed', 5);
    expect(d.last?.outcome).toBe('permanent');
    expect(d.proxy.status?.providerID).toBeUndefined();
    expect((await d.step()).outcome).toBe('latched');
    expect(ctl.creates).toBe(1);
    d.handles.set('ref', { ...handle, fingerprint: 'fp-2' });
    await d.until('Ready', 6);
    expect(ctl.creates).toBe(2);
  });

  it('still treats a Transient get failure as a read problem and keeps the instance', async () => {
    const { handle } = referenceHandle();
    let fail = false;
    const h = withOverrides(handle, {
      get: async (inner, id, o) => {
        if (fail) throw new Error('connection reset');
        return inner(id, o);
      },
    });
    const d = new Driver(newProxy(), [h]);
    await d.step();
    await d.step();
    fail = true;
    const r = await d.step();
    expect(r.requeue).toEqual({ type: 'backoff', tier: 'transient' });
    expect(d.proxy.status?.providerID).toBeDefined();
  });
});
