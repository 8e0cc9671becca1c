import { ErrorKind, ProviderError } from '@egress-proxies/contract';
import type { ProxyObject, ProxyStatus } from '../../api/proxy.js';
import type { ProxySpecError } from '../../api/validate.js';
import { canonicalJson } from '../../domain/canonical-json.js';
import { ConditionType, getCondition, setCondition } from './conditions.js';
import type {
  Outcome,
  ProviderHandle,
  ProxyEvent,
  ReconcileContext,
  ReconcileResult,
  Requeue,
} from './types.js';

export const DEFAULTS = {
  pollIntervalMs: 2_000,
  failedProbeRetryMs: 10_000,
  resyncMs: 300_000,
  blockedRetryMs: 60_000,
  latchRetryMs: 30 * 60_000,
  abortGraceMs: 10_000,
};

export const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d+Z$/, 'Z');

/** QuotaExceeded or Permanent: what a failed create answers, as opposed to a failed read. */
export function isCreateOutcome(err: unknown): boolean {
  return (
    ProviderError.isInstance(err) &&
    (err.kind === ErrorKind.QuotaExceeded || err.kind === ErrorKind.Permanent)
  );
}

/** Stops the managed flow with a result (thrown inside, caught once at the top). */
export class Stop {
  constructor(
    readonly requeue: Requeue,
    readonly outcome: Outcome,
  ) {}
}

/** The state of one pass and the helpers every step uses: status, conditions, events, errors. */
export abstract class PassBase {
  readonly events: ProxyEvent[] = [];
  status: ProxyStatus;
  endpoint?: { host: string; port: number };
  readonly generation: number;
  readonly cfg: typeof DEFAULTS;
  /** The digest of the provider's credential files, when the context reads them. */
  credentials?: string;

  constructor(
    readonly proxy: ProxyObject,
    readonly ctx: ReconcileContext,
  ) {
    this.status = structuredClone(proxy.status ?? {});
    // Progress belongs to the create running now; the pass that sees it running sets it again.
    delete this.status.progress;
    this.generation = proxy.metadata.generation ?? 0;
    this.cfg = {
      pollIntervalMs: ctx.pollIntervalMs ?? DEFAULTS.pollIntervalMs,
      failedProbeRetryMs: ctx.failedProbeRetryMs ?? DEFAULTS.failedProbeRetryMs,
      resyncMs: ctx.resyncMs ?? DEFAULTS.resyncMs,
      blockedRetryMs: ctx.blockedRetryMs ?? DEFAULTS.blockedRetryMs,
      latchRetryMs: ctx.latchRetryMs ?? DEFAULTS.latchRetryMs,
      abortGraceMs: ctx.abortGraceMs ?? DEFAULTS.abortGraceMs,
    };
  }

  get now(): Date {
    return this.ctx.now();
  }

  finish(r: { requeue: Requeue; outcome: Outcome; finalizer?: 'add' | 'remove' }): ReconcileResult {
    this.readyCondition();
    const changed = canonicalJson(this.status) !== canonicalJson(this.proxy.status ?? {});
    return {
      // A Proxy whose finalizer goes while it is being deleted is gone: nothing to write to.
      ...(changed && !(r.finalizer === 'remove' && this.proxy.metadata.deletionTimestamp)
        ? { status: this.status }
        : {}),
      ...(r.finalizer ? { finalizer: r.finalizer } : {}),
      requeue: r.requeue,
      events: this.events,
      outcome: r.outcome,
      ...(this.endpoint ? { endpoint: this.endpoint } : {}),
    };
  }

  async guard(
    fn: () => Promise<{ requeue: Requeue; outcome: Outcome; finalizer?: 'add' | 'remove' }>,
  ): Promise<{ requeue: Requeue; outcome: Outcome; finalizer?: 'add' | 'remove' }> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof Stop) return { requeue: err.requeue, outcome: err.outcome };
      throw err;
    }
  }

  event(type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.events.push({ type, reason, message });
  }

  condition(type: string, status: 'True' | 'False' | 'Unknown', reason: string, message?: string): void {
    this.status.conditions = setCondition(
      this.status.conditions,
      { type, status, reason, observedGeneration: this.generation, ...(message ? { message } : {}) },
      this.now,
    );
  }

  /** Mirrors the phase into the Ready condition, with the phase as its reason. */
  readyCondition(): void {
    const phase = this.status.phase;
    if (!phase) return;
    this.condition(ConditionType.Ready, phase === 'Ready' ? 'True' : 'False', phase, this.status.message);
  }

  // ---------------------------------------------------------------- invalid spec

  invalid(err: ProxySpecError): { requeue: Requeue; outcome: Outcome } {
    // The API server validates the same schema, so this is reached only by objects that skipped
    // it (an older CRD, a standalone file); latched on the generation like any Permanent failure.
    const message = err.message;
    const f = this.status.failure;
    if (
      this.status.phase === 'Failed' &&
      f?.generation === this.generation &&
      this.status.message === message
    ) {
      return { requeue: { type: 'none' }, outcome: 'latched' };
    }
    this.event('Warning', 'InvalidSpec', message);
    this.status.phase = 'Failed';
    this.status.message = message;
    this.status.observedGeneration = this.generation;
    this.status.failure = { generation: this.generation, providerConfig: '' };
    this.condition(ConditionType.Provisioned, 'False', 'InvalidSpec', message);
    return { requeue: { type: 'none' }, outcome: 'invalid' };
  }

  // ---------------------------------------------------------------- errors

  /** Turns a provider failure into status and a requeue; always throws `Stop`. */
  providerFailure(err: unknown, what: string, handle: ProviderHandle | undefined): never {
    const e = ProviderError.isInstance(err) ? err : undefined;
    const kind = e?.kind ?? ErrorKind.Transient;
    const reason = e ? e.message : err instanceof Error ? err.message : String(err);
    const message = `${what}: ${reason}`;
    this.status.message = message;
    if (kind === ErrorKind.Permanent) {
      if (this.status.phase !== 'Failed') this.event('Warning', 'Failed', message);
      const retryMs = this.cfg.latchRetryMs;
      const next = rfc3339(new Date(this.now.getTime() + retryMs));
      this.status.phase = 'Failed';
      this.status.message = `${message}; next attempt at ${next}`;
      this.status.failure = {
        generation: this.generation,
        providerConfig: handle?.fingerprint ?? '',
        ...(this.credentials !== undefined ? { credentials: this.credentials } : {}),
        nextRetryTime: next,
      };
      this.condition(ConditionType.Provisioned, 'False', 'PermanentError', message);
      // Latched: retried when the spec, the provider entry or its credential files change, and
      // on this long interval so a fix made on the backend itself is picked up too.
      throw new Stop({ type: 'after', ms: retryMs }, 'permanent');
    }
    if (kind === ErrorKind.QuotaExceeded) {
      if (getCondition(this.status.conditions, ConditionType.QuotaExceeded)?.status !== 'True') {
        this.event('Warning', 'QuotaExceeded', message);
      }
      this.condition(ConditionType.QuotaExceeded, 'True', e?.code ?? 'QuotaExceeded', message);
      throw new Stop({ type: 'backoff', tier: 'quota' }, 'quota');
    }
    this.condition(ConditionType.Provisioned, 'False', 'TransientError', message);
    throw new Stop({ type: 'backoff', tier: 'transient' }, 'transient');
  }

  clearQuota(): void {
    if (getCondition(this.status.conditions, ConditionType.QuotaExceeded)?.status === 'True') {
      this.condition(ConditionType.QuotaExceeded, 'False', 'CapacityAvailable');
    }
  }

  async call<T>(
    handle: ProviderHandle,
    op: string,
    fn: (opts: { signal?: AbortSignal }) => Promise<T>,
  ): Promise<T> {
    const signal = this.ctx.signal;
    if (this.ctx.call) return this.ctx.call(handle, op, fn, signal);
    return fn(signal ? { signal } : {});
  }

  /** Marks the instance for replacement (delete, wait until gone, create) on the next pass. */
  replaceInstance(reason: string, message: string) {
    this.event('Warning', reason, message);
    this.status.instanceSpecHash = '';
    this.status.phase = 'Provisioning';
    this.status.message = message;
    this.status.healthy = false;
    this.condition(ConditionType.Provisioned, 'False', reason, message);
    return { requeue: { type: 'after', ms: 0 } as Requeue, outcome: 'ok' as Outcome };
  }

  forgetInstance(): void {
    delete this.status.instanceCreatedTime;
    delete this.status.stoppedSince;
    delete this.status.providerID;
    delete this.status.instanceProvider;
    delete this.status.instanceGeneration;
    delete this.status.instanceSpecHash;
    delete this.status.ip;
    delete this.status.port;
    delete this.status.egressIP;
    delete this.status.assignedEgress;
    delete this.status.lastProbeTime;
    this.status.healthy = false;
  }

  recordCreated(id: string, provider: string, hash: string): void {
    this.clearQuota();
    delete this.status.pendingCreate;
    this.status.providerID = id;
    this.status.instanceProvider = provider;
    this.status.instanceGeneration = this.generation;
    this.status.instanceSpecHash = hash;
    this.status.instanceCreatedTime = rfc3339(this.now);
    this.status.healthy = false;
    this.status.message = `created instance ${id}`;
    this.event('Normal', 'Created', `created instance ${id} through provider ${provider}`);
    this.condition(ConditionType.Provisioned, 'False', 'Created', `created instance ${id}`);
  }
}
