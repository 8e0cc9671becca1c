import { CallTimeoutError } from './errors.js';

export interface Deadline {
  signal: AbortSignal | undefined;
  clear(): void;
}

/** One signal that fires on the caller's abort or after `timeoutMs` (with a CallTimeoutError naming `what`). */
export function deadline(options: { signal?: AbortSignal; timeoutMs?: number }, what: string): Deadline {
  const { signal, timeoutMs } = options;
  if (timeoutMs === undefined) return { signal, clear() {} };
  const ctrl = new AbortController();
  const timer = setTimeout(
    () => ctrl.abort(new CallTimeoutError(`${what} timed out after ${timeoutMs} ms`)),
    timeoutMs,
  );
  const onAbort = () => ctrl.abort(signal?.reason);
  if (signal?.aborted) ctrl.abort(signal.reason);
  else signal?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: ctrl.signal,
    clear() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}
