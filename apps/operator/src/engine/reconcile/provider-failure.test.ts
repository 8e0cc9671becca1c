import { permanentError, quotaExceededError, transientError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { ended, passState } from '../../../test/support/pass-fixture.js';
import { referenceHandle } from '../../../test/support/reconcile-fixture.js';
import { getCondition } from './conditions.js';
import { providerFailure } from './provider-failure.js';

// Each class of failure ends the pass (it used to be thrown as a `Stop`): a caller that went on
// would create or read again at once, with no backoff and no latch.
describe('providerFailure', () => {
  const { handle } = referenceHandle('ref', 'fp-9');

  it('latches Permanent as Failed with the provider fingerprint, credentials and next attempt', () => {
    const s = { ...passState({ ctx: { latchRetryMs: 60_000 } }), credentials: 'cred-1' };
    const end = ended(providerFailure(s, permanentError('image not found'), 'create x', handle));
    expect(end).toEqual({ requeue: { type: 'after', ms: 60_000 }, outcome: 'permanent' });
    expect(s.status.phase).toBe('Failed');
    expect(s.status.failure).toEqual({
      generation: 1,
      providerConfig: 'fp-9',
      credentials: 'cred-1',
      nextRetryTime: '2026-01-01T00:01:00Z',
    });
    expect(s.status.message).toBe('create x: image not found; next attempt at 2026-01-01T00:01:00Z');
    expect(getCondition(s.status.conditions, 'Provisioned')?.reason).toBe('PermanentError');
    expect(s.events.map((e) => e.reason)).toEqual(['Failed']);
  });

  it('backs off on QuotaExceeded with its condition, announced once', () => {
    const s = passState();
    const err = quotaExceededError('no room', { code: 'ZONE_EXHAUSTED' });
    expect(ended(providerFailure(s, err, 'create x', handle))).toEqual({
      requeue: { type: 'backoff', tier: 'quota' },
      outcome: 'quota',
    });
    expect(getCondition(s.status.conditions, 'QuotaExceeded')).toMatchObject({
      status: 'True',
      reason: 'ZONE_EXHAUSTED',
    });
    ended(providerFailure(s, err, 'create x', handle));
    expect(s.events.map((e) => e.reason)).toEqual(['QuotaExceeded']);
  });

  it('backs off as Transient on a Transient error and on anything that is not a ProviderError', () => {
    for (const err of [transientError('reset'), new Error('socket hang up')]) {
      const s = passState();
      expect(ended(providerFailure(s, err, 'get x', handle))).toEqual({
        requeue: { type: 'backoff', tier: 'transient' },
        outcome: 'transient',
      });
      expect(getCondition(s.status.conditions, 'Provisioned')?.reason).toBe('TransientError');
      expect(s.status.message).toMatch(/^get x: (reset|socket hang up)$/);
      expect(s.status.phase).toBeUndefined();
    }
  });
});
