import { instanceName, permanentError } from '@egress-proxies/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { continued, createOps, ended, passState, stopCreateOps } from '../../../test/support/pass-fixture.js';
import { newProxy, referenceHandle, withOverrides } from '../../../test/support/reconcile-fixture.js';
import { validateProxySpec } from '../../api/validate.js';
import { getCondition } from './conditions.js';
import { trackedCreate } from './tracked-create.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const spec = validateProxySpec(newProxy().spec);

/** Real create operations over a reference provider whose create waits until `release()`. */
function setup(o: { failWith?: Error } = {}) {
  const { handle: inner } = referenceHandle();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const handle = withOverrides(inner, {
    create: async (create, req, opts) => {
      // Honours the abort, so stopping the operations after a failed test does not wait forever.
      await new Promise<void>((resolve, reject) => {
        gate.then(resolve);
        opts?.signal?.addEventListener('abort', () => reject(opts.signal?.reason), { once: true });
      });
      if (o.failWith) throw o.failWith;
      return create(req, opts);
    },
  });
  const { slot, changed } = createOps({ limit: 1, now: () => T0 });
  const s = passState({ handles: [handle], ctx: { createOps: slot, blockedRetryMs: 60_000 } });
  /** The marker a pass writes before the one that starts the create. */
  const marked = (hash: string) => {
    s.status.pendingCreate = { provider: 'ref', instanceSpecHash: hash, startedTime: '2026-01-01T00:00:00Z' };
  };
  return { s, slot, handle, release, changed, marked };
}

afterEach(stopCreateOps);

const waitingOnCreate = { requeue: { type: 'after', ms: 60_000, keepBackoff: true }, outcome: 'ok' };

describe('trackedCreate', () => {
  it('writes the pending-create marker and ends the pass before any create starts', async () => {
    const { s, slot, handle } = setup();
    const end = ended(await trackedCreate(s, slot, spec, handle, 'h1'));
    expect(end).toEqual({ requeue: { type: 'after', ms: 0, keepBackoff: true }, outcome: 'ok' });
    expect(s.status.pendingCreate).toEqual({
      provider: 'ref',
      instanceSpecHash: 'h1',
      startedTime: '2026-01-01T00:00:00Z',
    });
    expect(slot.untouched()).toBe('2026-01-01T00:00:00Z');
    expect(slot.peek()).toBeUndefined();
  });

  it('ends the pass while the create is queued or running, saying which', async () => {
    const { s, slot, handle, marked, changed, release } = setup();
    marked('h1');
    const running = changed();
    expect(ended(await trackedCreate(s, slot, spec, handle, 'h1'))).toEqual(waitingOnCreate);
    expect(getCondition(s.status.conditions, 'Provisioned')?.reason).toBe('CreateQueued');
    await running;
    expect(ended(await trackedCreate(s, slot, spec, handle, 'h1'))).toEqual(waitingOnCreate);
    expect(s.status.message).toBe(
      `creating ${instanceName('ns1', 'p1')} through provider ref since 2026-01-01T00:00:00Z`,
    );
    expect(getCondition(s.status.conditions, 'Provisioned')?.reason).toBe('Creating');
    const settled = changed();
    release();
    await settled;
    expect(continued(await trackedCreate(s, slot, spec, handle, 'h1'))).toMatch(/^hosts\/alpha\/domains\//);
  });

  it('ends the pass on a create that failed, by its class', async () => {
    const { s, slot, handle, marked, changed, release } = setup({
      failWith: permanentError('image not found'),
    });
    marked('h1');
    const running = changed();
    ended(await trackedCreate(s, slot, spec, handle, 'h1'));
    await running;
    const settled = changed();
    release();
    await settled;
    expect(ended(await trackedCreate(s, slot, spec, handle, 'h1')).outcome).toBe('permanent');
    expect(s.status.phase).toBe('Failed');
  });

  it('ends the pass and schedules the abort when the spec changed while the create runs', async () => {
    const { s, slot, handle, marked, changed, release } = setup();
    marked('h1');
    const running = changed();
    ended(await trackedCreate(s, slot, spec, handle, 'h1'));
    await running;
    expect(ended(await trackedCreate(s, slot, spec, handle, 'h2'))).toEqual(waitingOnCreate);
    expect(slot.peek()?.abortAt).toBe(T0 + 10_000);
    expect(getCondition(s.status.conditions, 'Provisioned')?.reason).toBe('SpecChanged');
    // Settled for the earlier spec: its instance is recorded with that spec's hash, to be replaced.
    const settled = changed();
    release();
    await settled;
    expect(ended(await trackedCreate(s, slot, spec, handle, 'h2'))).toEqual({
      requeue: { type: 'after', ms: 0 },
      outcome: 'ok',
    });
    expect(s.status.instanceSpecHash).toBe('h1');
    expect(s.status.providerID).toMatch(/^hosts\/alpha\/domains\//);
    expect(s.events.map((e) => e.reason)).toEqual(['Created']);
  });
});
