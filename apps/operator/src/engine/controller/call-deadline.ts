import { ErrorCode, ErrorKind, ProviderError } from '@egress-proxies/contract';
import { raceAbort } from '@egress-proxies/provider-utils';
import type { ProviderCall, ProviderHandle } from '../reconcile/types.js';

/** `--create-timeout`: long enough for a VM's first image download over a slow link. */
export const DEFAULT_CREATE_TIMEOUT_MS = 30 * 60_000;
/** `--call-timeout`: get, delete, listByTag, check and every other call but create. */
export const DEFAULT_CALL_TIMEOUT_MS = 2 * 60_000;
/** The longest delay a Node timer takes; a longer deadline would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface CallDeadlines {
  /** The deadline of a create; a provider entry's `createTimeout` overrides it. 30 min when absent. */
  createMs?: number;
  /** The deadline of every other call; 2 min when absent. */
  callMs?: number;
}

/** `1h30m`, `2m`, `10s`, `250ms`: how a deadline is named in messages (the flags' own syntax). */
export function formatDeadline(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const s = Math.round(ms / 1000);
  const parts: string[] = [];
  if (s >= 3600) parts.push(`${Math.floor(s / 3600)}h`);
  if (s % 3600 >= 60) parts.push(`${Math.floor((s % 3600) / 60)}m`);
  if (s % 60 || parts.length === 0) parts.push(`${s % 60}s`);
  return parts.join('');
}

/** The deadline of one call of `handle`, and where it was set (for the message on expiry). */
export function deadlineOf(
  handle: Pick<ProviderHandle, 'name' | 'createTimeoutMs'>,
  op: string,
  d: CallDeadlines,
): { ms: number; source: string } {
  if (op === 'create') {
    if (handle.createTimeoutMs !== undefined)
      return { ms: handle.createTimeoutMs, source: `createTimeout of provider ${handle.name}` };
    return { ms: d.createMs ?? DEFAULT_CREATE_TIMEOUT_MS, source: '--create-timeout' };
  }
  return { ms: d.callMs ?? DEFAULT_CALL_TIMEOUT_MS, source: '--call-timeout' };
}

/**
 * Runs `run` under a signal that aborts when `outer` does or when `ms` pass. On expiry the call's
 * signal is aborted with a `TimeoutError` naming the deadline, and the caller gets a Transient
 * `TIMEOUT` ProviderError at once, even from a provider that never looks at its signal (contract
 * profile `timeouts: ctx-only` relies on the caller's signal alone, and a backend that never
 * answers would otherwise hold the call forever).
 */
export async function withDeadline<T>(
  what: { provider: string; operation: string; ms: number; source: string },
  outer: AbortSignal | undefined,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const c = new AbortController();
  const onOuter = () => c.abort(outer?.reason);
  if (outer?.aborted) onOuter();
  else outer?.addEventListener('abort', onOuter, { once: true });
  const reason = `no answer within the ${formatDeadline(what.ms)} deadline of a ${what.operation} (${what.source}); the call was aborted`;
  let expired = false;
  const timer = setTimeout(
    () => {
      expired = true;
      c.abort(new DOMException(reason, 'TimeoutError'));
    },
    Math.min(Math.max(what.ms, 0), MAX_TIMER_MS),
  );
  try {
    return await raceAbort(run(c.signal), c.signal);
  } catch (err) {
    if (!expired) throw err;
    throw new ProviderError({
      kind: ErrorKind.Transient,
      code: ErrorCode.Timeout,
      message: reason,
      provider: what.provider,
      operation: what.operation,
      cause: err,
      details: { deadlineMs: what.ms },
    });
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuter);
  }
}

/**
 * `inner` with a deadline on every call: the create deadline for creates, the call deadline
 * otherwise. The deadline sits inside `inner`, so its span and error metric end with the call.
 */
export function deadlineCall(inner: ProviderCall, deadlines: CallDeadlines): ProviderCall {
  return (handle, op, fn, signal) => {
    const { ms, source } = deadlineOf(handle, op, deadlines);
    const what = { provider: handle.name, operation: op, ms, source };
    return inner(handle, op, (o) => withDeadline(what, o.signal, (s) => fn({ ...o, signal: s })), signal);
  };
}
