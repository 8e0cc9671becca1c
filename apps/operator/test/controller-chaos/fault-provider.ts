import {
  type CreateRequest,
  isQuotaExceeded,
  permanentError,
  quotaExceededError,
  transientError,
} from '@egress-proxies/contract';
import { sleep } from '@egress-proxies/provider-utils';
import type { ProviderHandle } from '../../src/engine/reconcile/types.js';
import type { CreateCall } from '../support/backoff-gaps.js';

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
  /**
   * Create only: the backend never answers and the call never looks at its signal (a
   * `timeouts: ctx-only` provider over a call that cannot be cancelled); only the operator's
   * deadline ends it.
   */
  hang?: number;
}

export interface FaultCounts {
  transient: number;
  quota: number;
  permanent: number;
  asyncFailure: number;
  slow: number;
  hang: number;
}

/**
 * The reference provider with faults injected before each call, drawn from a seeded generator:
 * the classes a real backend answers with, slow creates, and submit-style creates that fail
 * after they were accepted (the id is returned, the machine never appears, get reports why).
 */
export function faultProvider(handle: ProviderHandle, rates: FaultRates, random: () => number) {
  const inner = handle.provider;
  const counts: FaultCounts = { transient: 0, quota: 0, permanent: 0, asyncFailure: 0, slow: 0, hang: 0 };
  const calls: CreateCall[] = [];
  /** The signal reasons of hung creates, by instance name (what ended them). */
  const hangEnds = new Map<string, unknown[]>();
  /** Instance names whose next create hangs whatever the draw says. */
  const hangNext = new Set<string>();
  /** Instance names whose next creates fail with these classes, in order. */
  const scripted = new Map<string, Array<'transient' | 'quota'>>();
  let epoch = 0;
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
      const call: CreateCall = { name: req.name, at: performance.now(), epoch, outcome: 'error' };
      calls.push(call);
      const hang = () => {
        counts.hang++;
        call.outcome = 'hang';
        // Deaf: it records what ended it (the deadline, an edit, a stop) and never settles.
        o?.signal?.addEventListener('abort', () => {
          call.endedAt = performance.now();
          const ends = hangEnds.get(req.name) ?? [];
          ends.push(o.signal?.reason);
          hangEnds.set(req.name, ends);
        });
        return new Promise<never>(() => {});
      };
      if (hangNext.delete(req.name)) return hang();
      const next = scripted.get(req.name)?.shift();
      if (next) {
        counts[next]++;
        call.outcome = next;
        call.endedAt = performance.now();
        throw next === 'quota'
          ? quotaExceededError('chaos: scripted quota failure of create')
          : transientError('chaos: scripted transient failure of create');
      }
      try {
        draw('create');
      } catch (err) {
        call.outcome = isQuotaExceeded(err) ? 'quota' : 'transient';
        call.endedAt = performance.now();
        throw err;
      }
      const id = `hosts/${req.placement.zone}/domains/${req.name}`;
      failedInserts.delete(id);
      if (enabled) {
        const r = random();
        if (r < rates.permanent) {
          counts.permanent++;
          call.outcome = 'permanent';
          throw permanentError('chaos: injected permanent failure of create');
        }
        if (r < rates.permanent + rates.asyncFailure) {
          counts.asyncFailure++;
          call.outcome = 'async';
          failedInserts.set(
            id,
            quotaExceededError('chaos: the accepted insert failed: ZONE_RESOURCE_POOL_EXHAUSTED'),
          );
          return id;
        }
        if (r < rates.permanent + rates.asyncFailure + rates.slow) {
          counts.slow++;
          await sleep(Math.floor(random() * rates.slowMs), o?.signal);
        } else if (r < rates.permanent + rates.asyncFailure + rates.slow + (rates.hang ?? 0)) {
          return hang();
        }
      }
      const made = await inner.create(req, o);
      call.outcome = 'done';
      call.endedAt = performance.now();
      return made;
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
    /** Every create call, in order. */
    calls,
    /** What ended each hung create of an instance name (the abort reasons its signal carried). */
    hangEnds,
    /** Makes the next creates of `name` fail with `outcomes`, in order. */
    scriptCreates: (name: string, outcomes: Array<'transient' | 'quota'>) =>
      void scripted.set(name, [...outcomes]),
    /** Makes the next create of `name` hang. */
    hangNextCreate: (name: string) => void hangNext.add(name),
    /** A new controller took over: gaps across a restart are not backoff gaps. */
    nextEpoch: () => {
      epoch++;
    },
    /** Stops injecting (the end of the run: everything that can be Ready must become Ready). */
    calm: () => {
      enabled = false;
    },
  };
}
