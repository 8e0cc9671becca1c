import { describe, expect, it } from 'vitest';
import { continued, ended, passState } from '../../../test/support/pass-fixture.js';
import { newProxy, referenceHandle } from '../../../test/support/reconcile-fixture.js';
import { ProxySpecError, validateProxySpec } from '../../api/validate.js';
import { invalidSpec, providerMissing, releaseLatch } from './failure-latch.js';

const { handle } = referenceHandle('ref', 'fp-1');

function failed(nextRetryTime?: string) {
  const s = passState({ ctx: { credentialDigest: async () => 'cred-1' } });
  Object.assign(s.status, {
    phase: 'Failed',
    message: 'create x: image not found',
    failure: {
      generation: 1,
      providerConfig: 'fp-1',
      credentials: 'cred-1',
      ...(nextRetryTime ? { nextRetryTime } : {}),
    },
  });
  return s;
}

function specError(): ProxySpecError {
  try {
    validateProxySpec(newProxy({ port: 0 }).spec);
  } catch (err) {
    if (ProxySpecError.isInstance(err)) return err;
    throw err;
  }
  throw new Error('port 0 validated');
}

describe('the failure latch', () => {
  it('releaseLatch ends the pass while nothing that failed changed and the next attempt is not due', async () => {
    expect(ended(await releaseLatch(failed('2026-01-01T00:05:00Z'), handle))).toEqual({
      requeue: { type: 'after', ms: 300_000 },
      outcome: 'latched',
    });
    expect(ended(await releaseLatch(failed(), handle))).toEqual({
      requeue: { type: 'none' },
      outcome: 'latched',
    });
  });

  it('releaseLatch clears the failure and continues with the credential digest once something changed', async () => {
    const s = failed();
    const other = referenceHandle('ref', 'fp-2').handle;
    const next = continued(await releaseLatch(s, other));
    expect(next.credentials).toBe('cred-1');
    expect(s.status).toMatchObject({ phase: 'Pending', observedGeneration: 1 });
    expect(s.status.failure).toBeUndefined();
  });

  it('providerMissing and invalidSpec end the pass as Failed', () => {
    const s = passState();
    expect(providerMissing(s, 'nope').end).toEqual({ requeue: { type: 'none' }, outcome: 'permanent' });
    expect(s.status.message).toBe('provider "nope" is not configured (configured: ref)');
    const bad = passState();
    const err = specError();
    expect(invalidSpec(bad, err).end).toEqual({ requeue: { type: 'none' }, outcome: 'invalid' });
    expect(bad.status.message).toBe(err.message);
    // The same error on the same generation: latched, no second event.
    expect(invalidSpec(bad, err).end.outcome).toBe('latched');
    expect(bad.events.map((e) => e.reason)).toEqual(['InvalidSpec']);
  });
});
