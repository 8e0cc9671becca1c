import {
  type CreateRequest,
  permanentError,
  quotaExceededError,
  transientError,
} from '@egress-proxies/contract';
import { sleep } from '@egress-proxies/provider-utils';
import type { ProviderHandle } from '../reconcile/types.js';

export interface FaultRates {
  transient: number;
  quota: number;
  /** Create only; latched, then released by the latch's retry interval. */
  permanent: number;
  /** Create only: accepted, then failed on the backend (get answers QuotaExceeded). */
  asyncFailure: number;
  /** Create only: the create waits up to `slowMs` first. */
  slow: number;
  slowMs: number;
}

export interface FaultCounts {
  transient: number;
  quota: number;
  permanent: number;
  asyncFailure: number;
  slow: number;
}

/**
 * The reference provider with faults injected before each call, drawn from a seeded generator:
 * the classes a real backend answers with, slow creates, and submit-style creates that fail
 * after they were accepted (the id is returned, the machine never appears, get reports why).
 */
export function faultProvider(handle: ProviderHandle, rates: FaultRates, random: () => number) {
  const inner = handle.provider;
  const counts: FaultCounts = { transient: 0, quota: 0, permanent: 0, asyncFailure: 0, slow: 0 };
  const failedInserts = new Map<string, Error>();
  let enabled = true;
  const draw = (op: string) => {
    if (!enabled) return;
    const r = random();
    if (r < rates.transient) {
      counts.transient++;
      throw transientError(`chaos: injected transient failure of ${op}`);
    }
    if (r < rates.transient + rates.quota) {
      counts.quota++;
      throw quotaExceededError(`chaos: injected quota failure of ${op}`);
    }
  };
  const overrides: Partial<Record<string | symbol, unknown>> = {
    async create(req: CreateRequest, o?: { signal?: AbortSignal }) {
      draw('create');
      const id = `hosts/${req.placement.zone}/domains/${req.name}`;
      failedInserts.delete(id);
      if (enabled) {
        const r = random();
        if (r < rates.permanent) {
          counts.permanent++;
          throw permanentError('chaos: injected permanent failure of create');
        }
        if (r < rates.permanent + rates.asyncFailure) {
          counts.asyncFailure++;
          failedInserts.set(
            id,
            quotaExceededError('chaos: the accepted insert failed: ZONE_RESOURCE_POOL_EXHAUSTED'),
          );
          return id;
        }
        if (r < rates.permanent + rates.asyncFailure + rates.slow) {
          counts.slow++;
          await sleep(Math.floor(random() * rates.slowMs), o?.signal);
        }
      }
      return inner.create(req, o);
    },
    async get(id: string, o?: { signal?: AbortSignal }) {
      draw('get');
      const failed = failedInserts.get(id);
      if (failed) throw failed;
      return inner.get(id, o);
    },
    async delete(id: string, o?: { signal?: AbortSignal }) {
      draw('delete');
      failedInserts.delete(id);
      return inner.delete(id, o);
    },
  };
  // Everything else goes to the provider itself, bound to it (its private fields need that).
  const provider = new Proxy(inner, {
    get(target, key) {
      if (key in overrides) return overrides[key];
      const v = Reflect.get(target, key, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return {
    handle: { ...handle, provider } as ProviderHandle,
    counts,
    /** Stops injecting (the end of the run: everything that can be Ready must become Ready). */
    calm: () => {
      enabled = false;
    },
  };
}
