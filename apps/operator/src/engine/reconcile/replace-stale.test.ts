import { InstanceState, notFoundError, transientError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { continued, ended, passState } from '../../../test/support/pass-fixture.js';
import { referenceHandle, withOverrides } from '../../../test/support/reconcile-fixture.js';
import { getCondition } from './conditions.js';
import { removeStale } from './replace-stale.js';

const ID = 'hosts/alpha/domains/old';

function stateWith(handle: ReturnType<typeof referenceHandle>['handle']) {
  const s = passState({ handles: [handle], ctx: { blockedRetryMs: 60_000 } });
  Object.assign(s.status, { providerID: ID, instanceProvider: 'ref', ip: '192.0.2.5', phase: 'Ready' });
  return s;
}

describe('removeStale', () => {
  it('ends the pass as blocked when the provider holding the instance is not configured', async () => {
    const s = stateWith(referenceHandle().handle);
    const end = ended(await removeStale(s, 'gone', 'Replacing'));
    expect(end).toEqual({ requeue: { type: 'after', ms: 60_000 }, outcome: 'blocked' });
    expect(s.status.message).toBe(
      `cannot remove instance ${ID}: provider "gone" holding it is not configured`,
    );
    expect(s.status.providerID).toBe(ID);
  });

  it('ends the pass while the provider still finds the deleted instance', async () => {
    const handle = withOverrides(referenceHandle().handle, {
      delete: async () => {},
      get: async (_inner, id) => ({ id, uid: '', state: InstanceState.Running, ip: '192.0.2.5' }),
    });
    const s = stateWith(handle);
    expect(ended(await removeStale(s, 'ref', 'Replacing'))).toEqual({
      requeue: { type: 'after', ms: 1000 },
      outcome: 'ok',
    });
    expect(s.status.message).toBe(`waiting for instance ${ID} to go before creating its replacement`);
    expect(s.status.providerID).toBe(ID);
  });

  it('ends the pass on a failed delete, by its class', async () => {
    const handle = withOverrides(referenceHandle().handle, {
      delete: async () => {
        throw transientError('connection reset');
      },
    });
    const s = stateWith(handle);
    expect(ended(await removeStale(s, 'ref', 'Replacing')).outcome).toBe('transient');
    expect(s.status.message).toBe(`delete ${ID}: connection reset`);
  });

  it('continues with the instance forgotten once it is gone', async () => {
    const handle = withOverrides(referenceHandle().handle, {
      delete: async () => {},
      get: async (_inner, id) => {
        throw notFoundError(`no instance ${id}`);
      },
    });
    const s = stateWith(handle);
    const next = continued(await removeStale(s, 'ref', 'Replacing'));
    expect(next).toBe(s);
    expect(s.status.providerID).toBeUndefined();
    expect(s.status.ip).toBeUndefined();
    expect(getCondition(s.status.conditions, 'Provisioned')?.reason).toBe('Replacing');
    expect(s.events.map((e) => e.reason)).toEqual(['Replacing']);
  });
});
