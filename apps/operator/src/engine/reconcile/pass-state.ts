import { ErrorKind, ProviderError } from '@egress-proxies/contract';
import type { ProxyObject, ProxyStatus } from '../../api/proxy.js';
import { canonicalJson } from '../../domain/canonical-json.js';
import { ConditionType, setCondition } from './conditions.js';
import type { PassEnd } from './step-outcome.js';
import type { ProxyEvent, ReconcileContext, ReconcileResult } from './types.js';

export const DEFAULTS = {
  pollIntervalMs: 2_000,
  failedProbeRetryMs: 10_000,
  resyncMs: 300_000,
  blockedRetryMs: 60_000,
  latchRetryMs: 30 * 60_000,
  abortGraceMs: 10_000,
};

export type PassConfig = typeof DEFAULTS;

export const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d+Z$/, 'Z');

/** QuotaExceeded or Permanent: what a failed create answers, as opposed to a failed read. */
export function isCreateOutcome(err: unknown): boolean {
  return (
    ProviderError.isInstance(err) &&
    (err.kind === ErrorKind.QuotaExceeded || err.kind === ErrorKind.Permanent)
  );
}

/**
 * What every step of one pass over one Proxy sees. Steps hand on a copy with what they learned
 * (the flows extend it with the spec, the provider handle, the instance); `status` and `events`
 * are the one status and event list this pass builds, shared by every copy and changed in place.
 */
export interface PassState {
  readonly proxy: ProxyObject;
  readonly ctx: ReconcileContext;
  readonly generation: number;
  readonly cfg: PassConfig;
  /** The status being built: a clone of the Proxy's, so the Proxy itself is never changed. */
  readonly status: ProxyStatus;
  readonly events: ProxyEvent[];
  /** Where clients reach the proxy, once this pass saw it running. */
  readonly endpoint?: { host: string; port: number };
  /** The digest of the provider's credential files, when the context reads them. */
  readonly credentials?: string;
}

export function newPassState(proxy: ProxyObject, ctx: ReconcileContext): PassState {
  const status = structuredClone(proxy.status ?? {});
  // Progress belongs to the create running now; the pass that sees it running sets it again.
  delete status.progress;
  return {
    proxy,
    ctx,
    status,
    events: [],
    generation: proxy.metadata.generation ?? 0,
    cfg: {
      pollIntervalMs: ctx.pollIntervalMs ?? DEFAULTS.pollIntervalMs,
      failedProbeRetryMs: ctx.failedProbeRetryMs ?? DEFAULTS.failedProbeRetryMs,
      resyncMs: ctx.resyncMs ?? DEFAULTS.resyncMs,
      blockedRetryMs: ctx.blockedRetryMs ?? DEFAULTS.blockedRetryMs,
      latchRetryMs: ctx.latchRetryMs ?? DEFAULTS.latchRetryMs,
      abortGraceMs: ctx.abortGraceMs ?? DEFAULTS.abortGraceMs,
    },
  };
}

export function event(s: PassState, type: 'Normal' | 'Warning', reason: string, message: string): void {
  s.events.push({ type, reason, message });
}

export function condition(
  s: PassState,
  type: string,
  status: 'True' | 'False' | 'Unknown',
  reason: string,
  message?: string,
): void {
  s.status.conditions = setCondition(
    s.status.conditions,
    { type, status, reason, observedGeneration: s.generation, ...(message ? { message } : {}) },
    s.ctx.now(),
  );
}

/** The pass's result: the status (only when it changed), events, requeue and endpoint. */
export function finishPass(s: PassState, end: PassEnd): ReconcileResult {
  // The Ready condition mirrors the phase, with the phase as its reason.
  const phase = s.status.phase;
  if (phase) condition(s, ConditionType.Ready, phase === 'Ready' ? 'True' : 'False', phase, s.status.message);
  const changed = canonicalJson(s.status) !== canonicalJson(s.proxy.status ?? {});
  return {
    // A Proxy whose finalizer goes while it is being deleted is gone: nothing to write to.
    ...(changed && !(end.finalizer === 'remove' && s.proxy.metadata.deletionTimestamp)
      ? { status: s.status }
      : {}),
    ...(end.finalizer ? { finalizer: end.finalizer } : {}),
    requeue: end.requeue,
    events: s.events,
    outcome: end.outcome,
    ...(s.endpoint ? { endpoint: s.endpoint } : {}),
  };
}
