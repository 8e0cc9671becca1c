import { abortReason } from '@egress-proxies/provider-utils';
import type { StepGate } from './control.js';

/** A gate a fake backend awaits inside a blocked step. */
export interface ManagedGate extends StepGate {
  /** Held until `release()`; rejects with the signal's reason when it aborts first. */
  wait(signal?: AbortSignal): Promise<void>;
  readonly released: boolean;
}

/**
 * A ready-made `StepGate` for harness authors: `block(step)` returns one, and the fake backend
 * calls `wait(signal)` at the start of every call of that step.
 */
export function createStepGate(): ManagedGate {
  let released = false;
  let held = 0;
  let markReached: () => void = () => {};
  const reached = new Promise<void>((resolve) => {
    markReached = resolve;
  });
  const waiters = new Set<() => void>();
  return {
    reached,
    get held() {
      return held;
    },
    get released() {
      return released;
    },
    release() {
      released = true;
      for (const w of waiters) w();
      waiters.clear();
    },
    wait(signal) {
      if (released) return Promise.resolve();
      if (signal?.aborted) return Promise.reject(abortReason(signal));
      held += 1;
      markReached();
      return new Promise<void>((resolve, reject) => {
        const onRelease = () => {
          held -= 1;
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          held -= 1;
          waiters.delete(onRelease);
          reject(abortReason(signal as AbortSignal));
        };
        waiters.add(onRelease);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}
