import { notFoundError } from '@egress-proxies/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { continued, createOps, ended, passState, stopCreateOps } from '../../../test/support/pass-fixture.js';
import { newProxy, referenceHandle, withOverrides } from '../../../test/support/reconcile-fixture.js';
import { FORCE_DELETE_ANNOTATION } from '../../api/group.js';
import { adoptSettledCreate, deleteInstance, forceDelete, stopCreateInFlight } from './delete-steps.js';

const deleting = (annotations: Record<string, string> = {}) => {
  const proxy = newProxy();
  proxy.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  proxy.metadata.annotations = annotations;
  return proxy;
};
afterEach(stopCreateOps);

describe('the deletion steps', () => {
  it('forceDelete removes the finalizer at once with the annotation, and continues without it', () => {
    const forced = passState({ proxy: deleting({ [FORCE_DELETE_ANNOTATION]: 'true' }) });
    expect(ended(forceDelete(forced))).toEqual({
      requeue: { type: 'none' },
      outcome: 'deleted',
      finalizer: 'remove',
    });
    const s = passState({ proxy: deleting() });
    expect(continued(forceDelete(s))).toBe(s);
  });

  it('stopCreateInFlight cancels a queued create nothing ran under, and ends the pass as blocked', () => {
    const { ops, slot } = createOps({ limit: 1 });
    // Another Proxy's create holds the provider's one slot (until the operations stop), so this one queues.
    const hold = (signal: AbortSignal) =>
      new Promise<string>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    ops.start('ns1/other', { provider: 'ref', token: 'o', hash: 'h' }, hold);
    slot.start({ provider: 'ref', token: 't', hash: 'h' }, async () => 'never');
    const s = passState({ proxy: deleting(), ctx: { createOps: slot } });
    expect(ended(stopCreateInFlight(s))).toEqual({
      requeue: { type: 'after', ms: 1000 },
      outcome: 'blocked',
    });
    expect(slot.peek()?.cancelled).toBe(true);
    expect(s.status.phase).toBe('Deleting');
  });

  it('adoptSettledCreate takes the ID a settled create made, to be deleted next', async () => {
    const { slot, changed } = createOps();
    const running = changed();
    slot.start({ provider: 'ref', token: 't', hash: 'h' }, async () => 'i-9');
    await running;
    if (slot.peek()?.state !== 'succeeded') await changed();
    const s = passState({ proxy: deleting(), ctx: { createOps: slot } });
    s.status.pendingCreate = { provider: 'ref', instanceSpecHash: 'h', startedTime: '2026-01-01T00:00:00Z' };
    expect(continued(await adoptSettledCreate(s))).toBe(s);
    expect(s.status).toMatchObject({ providerID: 'i-9', instanceProvider: 'ref' });
    expect(s.status.pendingCreate).toBeUndefined();
    expect(slot.peek()).toBeUndefined();
  });

  it('deleteInstance ends the pass as blocked when the provider is not configured, and removes the finalizer once gone', async () => {
    const blocked = passState({ proxy: deleting(), handles: [], ctx: { blockedRetryMs: 60_000 } });
    blocked.status.providerID = 'i-1';
    expect(ended(await deleteInstance(blocked)).outcome).toBe('blocked');
    const handle = withOverrides(referenceHandle().handle, {
      delete: async () => {},
      get: async (_i, id) => {
        throw notFoundError(`no ${id}`);
      },
    });
    const s = passState({ proxy: deleting(), handles: [handle] });
    s.status.providerID = 'i-1';
    expect(ended(await deleteInstance(s))).toEqual({
      requeue: { type: 'none' },
      outcome: 'deleted',
      finalizer: 'remove',
    });
  });
});
