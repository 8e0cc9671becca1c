import { abortReason } from '@egress-proxies/provider-utils';
import { BACKEND_METHODS, type BackendCallOptions, type KvmBackend } from './backend.js';
import { OPTIONS_INDEX } from './observe.js';

const aborted = new WeakMap<AbortSignal, Promise<never>>();

/** One promise per signal that rejects when it aborts: one listener however many calls race it. */
export function abortPromise(signal: AbortSignal): Promise<never> {
  let p = aborted.get(signal);
  if (!p) {
    p = new Promise<never>((_, reject) => {
      if (signal.aborted) reject(abortReason(signal));
      else signal.addEventListener('abort', () => reject(abortReason(signal)), { once: true });
    });
    p.catch(() => {});
    aborted.set(signal, p);
  }
  return p;
}

/** Resolves with `work`, or rejects as soon as `signal` aborts (leaving `work` to finish alone). */
export function race<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(abortReason(signal));
  }
  work.catch(() => {});
  return Promise.race([work, abortPromise(signal)]);
}

/**
 * For the pooled per-host connection: a caller's abort must not cut off other operations on the
 * host, and libvirt's protocol cannot cancel a sent call (abandoning one kills the connection).
 * So the call is sent without the caller's signal and only the caller stops waiting; the RPC
 * finishes on the connection (bounded by its own budget) and its result is dropped.
 */
export function detachSignal(inner: KvmBackend): KvmBackend {
  const wrapped: Record<string, unknown> = {};
  for (const method of BACKEND_METHODS) {
    const fn = (inner[method] as (...a: unknown[]) => Promise<unknown>).bind(inner);
    const at = OPTIONS_INDEX[method];
    wrapped[method] = (...args: unknown[]) => {
      const o = args[at] as BackendCallOptions | undefined;
      const signal = o?.signal;
      if (signal?.aborted) return Promise.reject(abortReason(signal));
      if (o) {
        const { signal: _dropped, track: _t, ...rest } = o;
        args[at] = rest;
      }
      const work = fn(...args);
      o?.track?.(work);
      return race(work, signal);
    };
  }
  Object.defineProperty(wrapped, 'isOpen', { get: () => inner.isOpen, enumerable: true });
  wrapped.close = () => inner.close();
  return wrapped as unknown as KvmBackend;
}
