import type { ProxySpecError } from '../../api/validate.js';
import { ConditionType } from './conditions.js';
import { condition, event, type PassState } from './pass-state.js';
import { type Done, done, next, type StepOutcome } from './step-outcome.js';
import type { ProviderHandle } from './types.js';

/**
 * A Failed Proxy is latched: not tried again until what failed can have changed (the spec, the
 * provider's entry, its credential files) or its next attempt is due. These steps set and read
 * that latch.
 */

/**
 * Ends the pass while the latch holds; otherwise clears the failure and continues, with the
 * credential digest read so a new failure records it.
 */
export async function releaseLatch(
  s: PassState,
  handle: ProviderHandle | undefined,
): Promise<StepOutcome<PassState>> {
  const credentials = handle && s.ctx.credentialDigest ? await s.ctx.credentialDigest(handle) : undefined;
  const withCredentials = credentials !== undefined ? { ...s, credentials } : s;
  const f = s.status.failure;
  if (
    s.status.phase === 'Failed' &&
    f &&
    f.generation === s.generation &&
    f.providerConfig === (handle?.fingerprint ?? '') &&
    (f.credentials ?? '') === (credentials ?? f.credentials ?? '')
  ) {
    const nextTry = Date.parse(f.nextRetryTime ?? '');
    if (!Number.isFinite(nextTry)) return done({ type: 'none' }, 'latched');
    const wait = nextTry - s.ctx.now().getTime();
    if (wait > 0) return done({ type: 'after', ms: wait }, 'latched');
  }
  if (f || s.status.phase === 'Failed') {
    delete s.status.failure;
    s.status.phase = s.status.providerID ? 'Provisioning' : 'Pending';
    delete s.status.message;
  }
  s.status.observedGeneration = s.generation;
  return next(withCredentials);
}

/** The Proxy names a provider that is not configured (or failed to load): Failed, latched. */
export function providerMissing(s: PassState, providerName: string): Done {
  const names = s.ctx.providerNames();
  const loadFailure = s.ctx.providerLoadFailure?.(providerName);
  const reason = loadFailure ? 'ProviderLoadFailed' : 'ProviderNotConfigured';
  const message = loadFailure
    ? `cannot load ${loadFailure}`
    : `provider ${JSON.stringify(providerName)} is not configured (configured: ${names.join(', ') || 'none'})`;
  event(s, 'Warning', reason, message);
  s.status.phase = 'Failed';
  s.status.message = message;
  s.status.failure = { generation: s.generation, providerConfig: '' };
  condition(s, ConditionType.Provisioned, 'False', reason, message);
  return done({ type: 'none' }, 'permanent');
}

/** A spec that does not validate: Failed, latched on its generation. */
export function invalidSpec(s: PassState, err: ProxySpecError): Done {
  // The API server validates the same schema, so this is reached only by objects that skipped
  // it (an older CRD, a standalone file); latched on the generation like any Permanent failure.
  const message = err.message;
  const f = s.status.failure;
  if (s.status.phase === 'Failed' && f?.generation === s.generation && s.status.message === message) {
    return done({ type: 'none' }, 'latched');
  }
  event(s, 'Warning', 'InvalidSpec', message);
  s.status.phase = 'Failed';
  s.status.message = message;
  s.status.observedGeneration = s.generation;
  s.status.failure = { generation: s.generation, providerConfig: '' };
  condition(s, ConditionType.Provisioned, 'False', 'InvalidSpec', message);
  return done({ type: 'none' }, 'invalid');
}
