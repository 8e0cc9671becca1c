import type { ProviderCall } from '../domain/provider-handle.js';
import { progressLogger } from '../engine/operations/progress-lines.js';

/**
 * Wraps a provider call so that the progress it logs is reported through `set`, and cleared
 * (`set(undefined)`) when the call ends, however it ends.
 */
export function withProgress(call: ProviderCall, set: (text: string | undefined) => void): ProviderCall {
  return async (handle, op, fn, signal) => {
    try {
      return await call(handle, op, (o) => fn({ ...o, logger: progressLogger(o.logger, set) }), signal);
    } finally {
      set(undefined);
    }
  };
}
