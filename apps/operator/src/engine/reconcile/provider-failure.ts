import { ErrorKind, ProviderError } from '@egress-proxies/contract';
import { ConditionType, getCondition } from './conditions.js';
import { condition, event, type PassState, rfc3339 } from './pass-state.js';
import { type Done, done } from './step-outcome.js';
import type { ProviderHandle } from './types.js';

/** Calls the provider through the context's runner (deadline, metrics) under the pass's signal. */
export function callProvider<T>(
  s: PassState,
  handle: ProviderHandle,
  op: string,
  fn: (opts: { signal?: AbortSignal }) => Promise<T>,
): Promise<T> {
  const signal = s.ctx.signal;
  if (s.ctx.call) return s.ctx.call(handle, op, fn, signal);
  return fn(signal ? { signal } : {});
}

/**
 * Ends the pass on a provider failure, by its class: Permanent latches the Proxy as Failed,
 * QuotaExceeded and Transient back off. Anything that is not a ProviderError counts as Transient.
 */
export function providerFailure(
  s: PassState,
  err: unknown,
  what: string,
  handle: ProviderHandle | undefined,
): Done {
  const e = ProviderError.isInstance(err) ? err : undefined;
  const kind = e?.kind ?? ErrorKind.Transient;
  const reason = e ? e.message : err instanceof Error ? err.message : String(err);
  const message = `${what}: ${reason}`;
  s.status.message = message;
  if (kind === ErrorKind.Permanent) {
    if (s.status.phase !== 'Failed') event(s, 'Warning', 'Failed', message);
    const retryMs = s.cfg.latchRetryMs;
    const nextTry = rfc3339(new Date(s.ctx.now().getTime() + retryMs));
    s.status.phase = 'Failed';
    s.status.message = `${message}; next attempt at ${nextTry}`;
    s.status.failure = {
      generation: s.generation,
      providerConfig: handle?.fingerprint ?? '',
      ...(s.credentials !== undefined ? { credentials: s.credentials } : {}),
      nextRetryTime: nextTry,
    };
    condition(s, ConditionType.Provisioned, 'False', 'PermanentError', message);
    // Latched: retried when the spec, the provider entry or its credential files change, and
    // on this long interval so a fix made on the backend itself is picked up too.
    return done({ type: 'after', ms: retryMs }, 'permanent');
  }
  if (kind === ErrorKind.QuotaExceeded) {
    if (getCondition(s.status.conditions, ConditionType.QuotaExceeded)?.status !== 'True') {
      event(s, 'Warning', 'QuotaExceeded', message);
    }
    condition(s, ConditionType.QuotaExceeded, 'True', e?.code ?? 'QuotaExceeded', message);
    return done({ type: 'backoff', tier: 'quota' }, 'quota');
  }
  condition(s, ConditionType.Provisioned, 'False', 'TransientError', message);
  return done({ type: 'backoff', tier: 'transient' }, 'transient');
}
