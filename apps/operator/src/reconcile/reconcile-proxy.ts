import {
  type CreateRequest,
  ErrorKind,
  type Instance,
  instanceName,
  isNotFound,
  ProviderError,
} from '@egress-proxies/contract';
import { parseDuration } from '../api/duration.js';
import { API_VERSION, FINALIZER, FORCE_DELETE_ANNOTATION, PROXY } from '../api/group.js';
import type { ProxyObject, ProxySpec, ProxyStatus } from '../api/proxy.js';
import { ProxySpecError, validateProxySpec } from '../api/validate.js';
import type { CreateOperationSlot } from '../operations/create-operations.js';
import { ConditionType, getCondition, setCondition } from './conditions.js';
import { instanceSpecHash } from './instance-hash.js';
import { formatWindow, readinessWindowMs, STOPPED_GRACE_MS } from './readiness-window.js';
import type {
  Outcome,
  ProviderHandle,
  ProxyEvent,
  ReconcileContext,
  ReconcileResult,
  Requeue,
} from './types.js';

const DEFAULTS = {
  pollIntervalMs: 2_000,
  failedProbeRetryMs: 10_000,
  resyncMs: 300_000,
  blockedRetryMs: 60_000,
  latchRetryMs: 30 * 60_000,
};

/** JSON with object keys sorted: the API server returns status keys in its own order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d+Z$/, 'Z');

/** QuotaExceeded or Permanent: what a failed create answers, as opposed to a failed read. */
function isCreateOutcome(err: unknown): boolean {
  return (
    ProviderError.isInstance(err) &&
    (err.kind === ErrorKind.QuotaExceeded || err.kind === ErrorKind.Permanent)
  );
}

/** Stops the managed flow with a result (thrown inside, caught once at the top). */
class Stop {
  constructor(
    readonly requeue: Requeue,
    readonly outcome: Outcome,
  ) {}
}

/**
 * One level-triggered pass over a Proxy: reads what the provider says, makes at most the calls
 * needed to move one step toward the spec, and returns the status to write, the finalizer change
 * and when to look again. It never writes anything itself, so the same function serves the
 * cluster and a standalone file store.
 */
export async function reconcileProxy(proxy: ProxyObject, ctx: ReconcileContext): Promise<ReconcileResult> {
  return new Pass(proxy, ctx).run();
}

class Pass {
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
    this.generation = proxy.metadata.generation ?? 0;
    this.cfg = {
      pollIntervalMs: ctx.pollIntervalMs ?? DEFAULTS.pollIntervalMs,
      failedProbeRetryMs: ctx.failedProbeRetryMs ?? DEFAULTS.failedProbeRetryMs,
      resyncMs: ctx.resyncMs ?? DEFAULTS.resyncMs,
      blockedRetryMs: ctx.blockedRetryMs ?? DEFAULTS.blockedRetryMs,
      latchRetryMs: ctx.latchRetryMs ?? DEFAULTS.latchRetryMs,
    };
  }

  get now(): Date {
    return this.ctx.now();
  }

  async run(): Promise<ReconcileResult> {
    const finalizers = this.proxy.metadata.finalizers ?? [];
    const hasFinalizer = finalizers.includes(FINALIZER);
    if (this.proxy.metadata.deletionTimestamp) {
      if (!hasFinalizer) return { requeue: { type: 'none' }, events: [], outcome: 'ok' };
      return this.finish(await this.guard(() => this.deleting()));
    }
    let spec: ProxySpec;
    try {
      spec = validateProxySpec(this.proxy.spec);
    } catch (err) {
      if (!ProxySpecError.isInstance(err)) throw err;
      return this.finish(this.invalid(err));
    }
    if (spec.mode === 'External')
      return this.finish(await this.guard(() => this.external(spec, hasFinalizer)));
    if (!hasFinalizer) {
      // The finalizer goes on before any provider call, so no instance can exist without it.
      if (!this.status.phase) this.status.phase = 'Pending';
      this.status.observedGeneration = this.generation;
      return { ...this.finish({ requeue: { type: 'after', ms: 0 }, outcome: 'ok' }), finalizer: 'add' };
    }
    return this.finish(await this.guard(() => this.managed(spec)));
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

  // ---------------------------------------------------------------- managed

  async managed(spec: ProxySpec) {
    const providerName = spec.provider!;
    const handle = this.ctx.provider(providerName);
    const fingerprint = handle?.fingerprint ?? '';
    if (handle && this.ctx.credentialDigest) this.credentials = await this.ctx.credentialDigest(handle);
    const f = this.status.failure;
    if (
      this.status.phase === 'Failed' &&
      f &&
      f.generation === this.generation &&
      f.providerConfig === fingerprint &&
      (f.credentials ?? '') === (this.credentials ?? f.credentials ?? '')
    ) {
      // Latched until the spec, the provider's entry or its credential files change, or the
      // next attempt is due.
      const next = Date.parse(f.nextRetryTime ?? '');
      if (!Number.isFinite(next))
        return { requeue: { type: 'none' } as Requeue, outcome: 'latched' as Outcome };
      const wait = next - this.now.getTime();
      if (wait > 0) return { requeue: { type: 'after', ms: wait } as Requeue, outcome: 'latched' as Outcome };
    }
    if (f || this.status.phase === 'Failed') {
      delete this.status.failure;
      this.status.phase = this.status.providerID ? 'Provisioning' : 'Pending';
      delete this.status.message;
    }
    this.status.observedGeneration = this.generation;
    if (!handle) {
      const names = this.ctx.providerNames();
      const message = `provider ${JSON.stringify(providerName)} is not configured (configured: ${names.join(', ') || 'none'})`;
      this.event('Warning', 'ProviderNotConfigured', message);
      this.status.phase = 'Failed';
      this.status.message = message;
      this.status.failure = { generation: this.generation, providerConfig: '' };
      this.condition(ConditionType.Provisioned, 'False', 'ProviderNotConfigured', message);
      return { requeue: { type: 'none' } as Requeue, outcome: 'permanent' as Outcome };
    }

    const hash = instanceSpecHash(spec);
    if (this.status.providerID && this.status.instanceSpecHash !== hash) {
      await this.removeStale(this.status.instanceProvider ?? providerName, 'Replacing');
    }

    if (!this.status.providerID) {
      await this.create(spec, handle, hash);
      // The provider ID is written before anything else happens, so a crash now cannot lose it.
      return { requeue: { type: 'after', ms: 0 } as Requeue, outcome: 'ok' as Outcome };
    }

    let inst: Instance;
    try {
      inst = await this.call(handle, 'get', (o) => handle.provider.get(this.status.providerID!, o));
    } catch (err) {
      if (isNotFound(err)) {
        const message = `instance ${this.status.providerID} is gone; creating it again`;
        this.event('Warning', 'InstanceGone', message);
        this.forgetInstance();
        this.status.phase = 'Provisioning';
        this.status.message = message;
        this.condition(ConditionType.Provisioned, 'False', 'InstanceGone', message);
        return { requeue: { type: 'after', ms: 0 } as Requeue, outcome: 'ok' as Outcome };
      }
      if (!this.status.ip && isCreateOutcome(err)) {
        // Never seen running, and get answers with a class a read cannot have (a submitted
        // insert that failed on the backend, gcp): the create failed, so the next one is a
        // new create after the class's backoff (or the latch), not another get of the same id.
        const id = this.status.providerID;
        this.forgetInstance();
        this.providerFailure(err, `create of ${id} failed after it was accepted`, handle);
      }
      this.providerFailure(err, `get ${this.status.providerID}`, handle);
    }
    this.clearQuota();

    if (inst.state === 'Stopped') {
      const r = this.stopped(inst);
      if (r) return r;
    }
    if (inst.state === 'Terminated')
      return this.replaceInstance('InstanceTerminated', `instance ${inst.id} is Terminated; replacing it`);
    delete this.status.stoppedSince;
    if (inst.state === 'Provisioning' || !inst.ip) {
      const waiting =
        inst.state === 'Provisioning'
          ? 'the instance is starting'
          : 'the instance runs but has no address yet';
      const overdue = this.readinessOverdue(handle, inst, waiting);
      if (overdue) return overdue;
      this.status.phase = 'Provisioning';
      this.status.message = waiting;
      this.condition(
        ConditionType.Provisioned,
        'False',
        inst.state === 'Provisioning' ? 'Provisioning' : 'WaitingForAddress',
        waiting,
      );
      return { requeue: { type: 'after', ms: this.cfg.pollIntervalMs } as Requeue, outcome: 'ok' as Outcome };
    }
    if (this.status.ip !== inst.ip) {
      this.status.ip = inst.ip;
      delete this.status.lastProbeTime;
      delete this.status.egressIP;
    }
    const at = inst.port !== undefined ? `${inst.ip}:${inst.port}` : inst.ip;
    // A provider that runs several proxies on one address allocates their ports.
    this.endpoint = { host: inst.ip, port: inst.port ?? spec.port };
    this.condition(ConditionType.Provisioned, 'True', 'InstanceRunning', `instance ${inst.id} runs at ${at}`);
    if (this.status.phase !== 'Running' && this.status.phase !== 'Ready') {
      // Running is written before the first probe, so a watcher sees every step.
      this.status.phase = 'Running';
      this.status.message = `instance ${inst.id} runs at ${at}`;
      this.event('Normal', 'Running', `instance ${inst.id} runs at ${at}`);
      return { requeue: { type: 'after', ms: 0 } as Requeue, outcome: 'ok' as Outcome };
    }
    return this.probeStep(spec, inst.ip, inst.port ?? spec.port);
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

  /** A Stopped instance may come back by itself: it is replaced only after the grace period. */
  stopped(inst: Instance) {
    const nowMs = this.now.getTime();
    const since = this.status.stoppedSince ? Date.parse(this.status.stoppedSince) : Number.NaN;
    const grace = this.ctx.stoppedGraceMs ?? STOPPED_GRACE_MS;
    if (Number.isFinite(since) && nowMs - since >= grace) {
      delete this.status.stoppedSince;
      return this.replaceInstance(
        'InstanceStopped',
        `instance ${inst.id} has been Stopped for ${formatWindow(nowMs - since)} (grace ${formatWindow(grace)}); replacing it`,
      );
    }
    const start = Number.isFinite(since) ? since : nowMs;
    if (!Number.isFinite(since)) {
      this.status.stoppedSince = rfc3339(this.now);
      this.event(
        'Warning',
        'InstanceStopped',
        `instance ${inst.id} is Stopped; replacing it unless it runs again within ${formatWindow(grace)}`,
      );
    }
    const message = `instance ${inst.id} is Stopped since ${rfc3339(new Date(start))}; replaced if it does not run again within ${formatWindow(grace)}`;
    this.status.phase = 'Provisioning';
    this.status.message = message;
    this.status.healthy = false;
    this.condition(ConditionType.Provisioned, 'False', 'InstanceStopped', message);
    const remaining = start + grace - nowMs;
    return {
      requeue: {
        type: 'after',
        ms: Math.max(0, Math.min(remaining, 10 * this.cfg.pollIntervalMs)),
      } as Requeue,
      outcome: 'ok' as Outcome,
    };
  }

  /** Replaces an instance still not usable past its readiness window; undefined while within it. */
  readinessOverdue(handle: ProviderHandle, inst: Instance, waiting: string) {
    const nowMs = this.now.getTime();
    // Our own record first (the operator's clock); the backend's time for an instance created
    // before the field existed.
    const recorded = Date.parse(this.status.instanceCreatedTime ?? '');
    const created = Number.isFinite(recorded) ? recorded : (inst.createdAt?.getTime() ?? Number.NaN);
    if (!Number.isFinite(created)) {
      // No creation time known (an instance from before this field): its window starts now.
      this.status.instanceCreatedTime = rfc3339(this.now);
      return undefined;
    }
    const window = this.ctx.readinessWindowMs ?? readinessWindowMs(handle.provider.profile);
    if (nowMs - created < window) return undefined;
    const message = `instance ${inst.id} is not usable ${formatWindow(nowMs - created)} after its create (${waiting}); the readiness window of provider ${handle.name} is ${formatWindow(window)}, replacing it`;
    return this.replaceInstance('ReadinessWindowExceeded', message);
  }

  forgetInstance(): void {
    delete this.status.instanceCreatedTime;
    delete this.status.stoppedSince;
    delete this.status.providerID;
    delete this.status.instanceProvider;
    delete this.status.instanceGeneration;
    delete this.status.instanceSpecHash;
    delete this.status.ip;
    delete this.status.egressIP;
    delete this.status.lastProbeTime;
    this.status.healthy = false;
  }

  /**
   * Deletes the current instance and waits until the provider no longer finds it. Names are
   * deterministic, so the old instance must be gone before the new one is created: the count
   * never exceeds one, whatever quota the provider has left.
   */
  async removeStale(providerName: string, reason: string): Promise<void> {
    const id = this.status.providerID!;
    const old = this.ctx.provider(providerName);
    if (!old) {
      const message = `cannot remove instance ${id}: provider ${JSON.stringify(providerName)} holding it is not configured`;
      this.status.message = message;
      this.condition(ConditionType.Provisioned, 'False', 'ProviderNotConfigured', message);
      throw new Stop({ type: 'after', ms: this.cfg.blockedRetryMs }, 'blocked');
    }
    if (getCondition(this.status.conditions, ConditionType.Provisioned)?.reason !== reason) {
      this.event('Normal', reason, `deleting instance ${id} before creating its replacement`);
    }
    this.status.phase = 'Provisioning';
    this.status.healthy = false;
    this.status.message = `replacing instance ${id}`;
    this.condition(ConditionType.Provisioned, 'False', reason, this.status.message);
    try {
      await this.call(old, 'delete', (o) => old.provider.delete(id, o));
    } catch (err) {
      this.providerFailure(err, `delete ${id}`, old);
    }
    try {
      await this.call(old, 'get', (o) => old.provider.get(id, o));
    } catch (err) {
      if (isNotFound(err)) {
        this.forgetInstance();
        return;
      }
      this.providerFailure(err, `get ${id}`, old);
    }
    this.status.message = `waiting for instance ${id} to go before creating its replacement`;
    throw new Stop({ type: 'after', ms: this.cfg.pollIntervalMs }, 'ok');
  }

  async create(spec: ProxySpec, handle: ProviderHandle, hash: string): Promise<void> {
    if (this.status.phase !== 'Provisioning') this.status.phase = 'Provisioning';
    const ops = this.ctx.createOps;
    let id: string;
    if (ops) {
      id = await this.trackedCreate(ops, spec, handle, hash);
    } else {
      const req = await this.createRequest(spec);
      try {
        id = await this.call(handle, 'create', (o) => handle.provider.create(req, o));
      } catch (err) {
        this.providerFailure(err, `create ${req.name}`, handle);
      }
    }
    this.recordCreated(id, handle.name, hash);
  }

  /**
   * A create run as a tracked operation: started by one pass, shown in the status while it
   * runs, its result taken by the pass after it settled. Throws `Stop` until then.
   */
  async trackedCreate(
    ops: CreateOperationSlot,
    spec: ProxySpec,
    handle: ProviderHandle,
    hash: string,
  ): Promise<string> {
    const name = instanceName(this.proxy.metadata.namespace, this.proxy.metadata.name);
    const token = `${this.proxy.metadata.uid ?? ''}:${hash}`;
    const settled = ops.take();
    let op = settled ?? ops.peek();
    if (op && (op.token !== token || op.provider !== handle.name)) {
      if (!settled) {
        ops.cancel('the Proxy spec changed while its instance was being created');
        this.status.message = `stopping the create of ${name} started for an earlier spec`;
        this.condition(ConditionType.Provisioned, 'False', 'Creating', this.status.message);
        throw new Stop({ type: 'after', ms: this.cfg.blockedRetryMs }, 'ok');
      }
      if (op.state === 'succeeded' && op.id) {
        // An instance of the earlier spec exists: recorded with its own hash, so the next pass replaces it.
        this.recordCreated(op.id, op.provider, op.hash);
        throw new Stop({ type: 'after', ms: 0 }, 'ok');
      }
      op = undefined;
    }
    if (!op) {
      const req = await this.createRequest(spec);
      op = ops.start({ provider: handle.name, token, hash }, (signal) => {
        const fn = (o: { signal?: AbortSignal }) => handle.provider.create(req, o);
        return this.ctx.call ? this.ctx.call(handle, 'create', fn, signal) : fn({ signal });
      });
    }
    if (op.state === 'failed') this.providerFailure(op.error, `create ${name}`, handle);
    if (op.state === 'succeeded') return op.id!;
    const since = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
    if (op.state === 'queued') {
      this.status.message = `create of ${name} is queued behind ${op.aheadAtQueue} other creates of provider ${handle.name} (since ${since(op.queuedAt)})`;
      this.condition(ConditionType.Provisioned, 'False', 'CreateQueued', this.status.message);
    } else {
      this.status.message = `creating ${name} through provider ${handle.name} since ${since(op.runningSince ?? op.queuedAt)}`;
      this.condition(ConditionType.Provisioned, 'False', 'Creating', this.status.message);
    }
    // The operation reconciles the key again when it starts running and when it settles.
    throw new Stop({ type: 'after', ms: this.cfg.blockedRetryMs }, 'ok');
  }

  recordCreated(id: string, provider: string, hash: string): void {
    this.clearQuota();
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

  async createRequest(spec: ProxySpec): Promise<CreateRequest> {
    const { metadata } = this.proxy;
    let cloudInit: string | undefined = spec.cloudInit?.inline;
    const ref = spec.cloudInit?.secretRef;
    if (ref) {
      try {
        cloudInit = await this.ctx.readCloudInitSecret(this.proxy, ref.name, ref.key, this.ctx.signal);
      } catch (err) {
        const message = `cloud-init Secret ${ref.name} key ${ref.key}: ${err instanceof Error ? err.message : String(err)}`;
        this.status.message = message;
        this.condition(ConditionType.Provisioned, 'False', 'CloudInitUnavailable', message);
        throw new Stop({ type: 'backoff', tier: 'transient' }, 'transient');
      }
    }
    const req: CreateRequest = {
      name: instanceName(metadata.namespace, metadata.name),
      namespace: metadata.namespace,
      proxyName: metadata.name,
      uid: metadata.uid ?? '',
      port: spec.port,
      placement: { ...(spec.placement ?? {}) },
      installation: this.ctx.installation,
      owner: { apiVersion: API_VERSION, kind: PROXY.kind, name: metadata.name, uid: metadata.uid ?? '' },
      ...(cloudInit !== undefined ? { cloudInit } : {}),
    };
    return req;
  }

  // ---------------------------------------------------------------- probe

  async probeStep(spec: ProxySpec, host: string, port: number) {
    const probe =
      spec.probe ??
      (this.ctx.defaultProbeTarget
        ? { target: this.ctx.defaultProbeTarget, interval: '60s', timeout: '10s', retries: 2 }
        : undefined);
    if (!probe) {
      this.status.phase = 'Ready';
      this.status.message = 'running; no probe configured';
      delete this.status.healthy;
      this.condition(ConditionType.Healthy, 'Unknown', 'NotProbed', 'no probe is configured');
      return { requeue: { type: 'after', ms: this.cfg.resyncMs } as Requeue, outcome: 'ok' as Outcome };
    }
    const intervalMs = parseDuration(probe.interval);
    const nowMs = this.now.getTime();
    const last = this.status.lastProbeTime ? Date.parse(this.status.lastProbeTime) : Number.NaN;
    const settled = this.status.phase === 'Ready' && this.status.healthy === true;
    if (settled && Number.isFinite(last) && nowMs - last < intervalMs) {
      return {
        requeue: { type: 'after', ms: last + intervalMs - nowMs } as Requeue,
        outcome: 'ok' as Outcome,
      };
    }
    const result = await this.ctx.probe(
      { host, port, target: probe.target, timeoutMs: parseDuration(probe.timeout), retries: probe.retries },
      this.ctx.signal,
    );
    this.status.lastProbeTime = this.now.toISOString().replace(/\.\d+Z$/, 'Z');
    if (result.ok) {
      if (this.status.phase !== 'Ready')
        this.event('Normal', 'Ready', `probe through ${host}:${port} passed`);
      this.status.phase = 'Ready';
      this.status.healthy = true;
      this.status.message = 'ready';
      if (result.egressIP) this.status.egressIP = result.egressIP;
      this.condition(
        ConditionType.Healthy,
        'True',
        'ProbeSucceeded',
        `${probe.target} answered in ${Math.round(result.latencyMs)} ms`,
      );
      return { requeue: { type: 'after', ms: intervalMs } as Requeue, outcome: 'ok' as Outcome };
    }
    const message = `probe of ${probe.target} through ${host}:${port} failed: ${result.error ?? 'unknown error'}`;
    if (getCondition(this.status.conditions, ConditionType.Healthy)?.reason !== 'ProbeFailed') {
      this.event('Warning', 'ProbeFailed', message);
    }
    this.status.phase = 'Running';
    this.status.healthy = false;
    this.status.message = message;
    this.condition(ConditionType.Healthy, 'False', 'ProbeFailed', message);
    return {
      requeue: { type: 'after', ms: Math.min(intervalMs, this.cfg.failedProbeRetryMs) } as Requeue,
      outcome: 'ok' as Outcome,
    };
  }

  // ---------------------------------------------------------------- external

  async external(spec: ProxySpec, hasFinalizer: boolean) {
    this.status.observedGeneration = this.generation;
    delete this.status.failure;
    if (this.status.providerID) {
      // A Proxy switched from Managed: its instance goes first.
      await this.removeStale(this.status.instanceProvider ?? '', 'Replacing');
    }
    const address = spec.address!;
    const i = address.lastIndexOf(':');
    const host = address.slice(0, i).replace(/^\[(.*)\]$/, '$1');
    const port = Number(address.slice(i + 1));
    this.status.ip = host;
    this.endpoint = { host, port };
    this.condition(ConditionType.Provisioned, 'True', 'External', `external proxy ${address}`);
    if (this.status.phase !== 'Ready') this.status.phase = 'Running';
    const r = await this.probeStep(spec, host, port);
    return hasFinalizer ? { ...r, finalizer: 'remove' as const } : r;
  }

  // ---------------------------------------------------------------- deletion

  async deleting(): Promise<{ requeue: Requeue; outcome: Outcome; finalizer?: 'add' | 'remove' }> {
    const annotations = this.proxy.metadata.annotations ?? {};
    const id = this.status.providerID;
    if (annotations[FORCE_DELETE_ANNOTATION] === 'true') {
      this.event(
        'Warning',
        'FinalizerForceRemoved',
        `finalizer removed by ${FORCE_DELETE_ANNOTATION}${id ? `; instance ${id} was not deleted (orphan GC collects it)` : ''}`,
      );
      return { requeue: { type: 'none' }, outcome: 'deleted', finalizer: 'remove' };
    }
    this.status.phase = 'Deleting';
    const ops = this.ctx.createOps;
    const op = ops?.peek();
    if (ops && op && (op.state === 'queued' || op.state === 'running')) {
      // The create's result decides what there is to delete: stop it and wait for it to settle.
      ops.cancel('the Proxy is being deleted');
      this.status.message = 'stopping the create in flight before deleting';
      return { requeue: { type: 'after', ms: this.cfg.pollIntervalMs }, outcome: 'blocked' };
    }
    const made = ops?.take();
    if (!id && made?.state === 'succeeded' && made.id) {
      this.status.providerID = made.id;
      this.status.instanceProvider = made.provider;
      return this.deleting();
    }
    if (!id) return { requeue: { type: 'none' }, outcome: 'deleted', finalizer: 'remove' };
    const providerName = this.status.instanceProvider ?? this.proxy.spec.provider ?? '';
    const handle = this.ctx.provider(providerName);
    if (!handle) {
      const message = `cannot delete instance ${id}: provider ${JSON.stringify(providerName)} is not configured; set annotation ${FORCE_DELETE_ANNOTATION}=true to remove the finalizer without deleting it`;
      if (this.status.message !== message) this.event('Warning', 'DeleteBlocked', message);
      this.status.message = message;
      return { requeue: { type: 'after', ms: this.cfg.blockedRetryMs }, outcome: 'blocked' };
    }
    try {
      await this.call(handle, 'delete', (o) => handle.provider.delete(id, o));
    } catch (err) {
      const e = ProviderError.isInstance(err) ? err : undefined;
      const message = `delete of instance ${id} failed: ${e ? e.message : String(err)}; the finalizer stays (set annotation ${FORCE_DELETE_ANNOTATION}=true to remove it without deleting)`;
      this.event('Warning', 'DeleteFailed', message);
      this.status.message = message;
      const tier = e?.kind === ErrorKind.Transient ? 'transient' : 'quota';
      return {
        requeue: { type: 'backoff', tier },
        outcome: e?.kind === ErrorKind.Permanent ? 'permanent' : 'transient',
      };
    }
    // A provider whose delete returns once submitted (gcp, kubernetes) may still fail it later:
    // the finalizer stays until get answers NotFound, and each pass submits the delete again.
    try {
      await this.call(handle, 'get', (o) => handle.provider.get(id, o));
    } catch (err) {
      if (isNotFound(err)) {
        this.event('Normal', 'Deleted', `deleted instance ${id}`);
        return { requeue: { type: 'none' }, outcome: 'deleted', finalizer: 'remove' };
      }
      const e = ProviderError.isInstance(err) ? err : undefined;
      this.status.message = `delete of instance ${id} accepted; reading it failed: ${e ? e.message : String(err)}`;
      return { requeue: { type: 'backoff', tier: 'transient' }, outcome: 'transient' };
    }
    this.status.message = `delete of instance ${id} accepted; waiting until the provider no longer finds it`;
    return { requeue: { type: 'after', ms: this.cfg.pollIntervalMs }, outcome: 'ok' };
  }
}
