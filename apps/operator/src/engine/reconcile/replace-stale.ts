import { isNotFound } from '@egress-proxies/contract';
import { ConditionType, getCondition } from './conditions.js';
import { forgetInstance } from './instance-record.js';
import { condition, event, type PassState } from './pass-state.js';
import { callProvider, providerFailure } from './provider-failure.js';
import { done, next, type StepOutcome } from './step-outcome.js';

/**
 * Deletes the current instance and waits until the provider no longer finds it; continues (with
 * the instance forgotten) only once it is gone. Names are deterministic, so the old instance must
 * be gone before the new one is created: the count never exceeds one, whatever quota the
 * provider has left.
 */
export async function removeStale<S extends PassState>(
  s: S,
  providerName: string,
  reason: string,
): Promise<StepOutcome<S>> {
  const id = s.status.providerID!;
  const old = s.ctx.provider(providerName);
  if (!old) {
    const message = `cannot remove instance ${id}: provider ${JSON.stringify(providerName)} holding it is not configured`;
    s.status.message = message;
    condition(s, ConditionType.Provisioned, 'False', 'ProviderNotConfigured', message);
    return done({ type: 'after', ms: s.cfg.blockedRetryMs }, 'blocked');
  }
  if (getCondition(s.status.conditions, ConditionType.Provisioned)?.reason !== reason) {
    event(s, 'Normal', reason, `deleting instance ${id} before creating its replacement`);
  }
  s.status.phase = 'Provisioning';
  s.status.healthy = false;
  s.status.message = `replacing instance ${id}`;
  condition(s, ConditionType.Provisioned, 'False', reason, s.status.message);
  try {
    await callProvider(s, old, 'delete', (o) => old.provider.delete(id, o));
  } catch (err) {
    return providerFailure(s, err, `delete ${id}`, old);
  }
  try {
    await callProvider(s, old, 'get', (o) => old.provider.get(id, o));
  } catch (err) {
    if (isNotFound(err)) {
      forgetInstance(s);
      return next(s);
    }
    return providerFailure(s, err, `get ${id}`, old);
  }
  s.status.message = `waiting for instance ${id} to go before creating its replacement`;
  return done({ type: 'after', ms: s.cfg.pollIntervalMs });
}
