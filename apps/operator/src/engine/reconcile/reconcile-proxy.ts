import {
  ErrorKind,
  type Instance,
  type InstanceEgress,
  isNotFound,
  ProviderError,
} from '@egress-proxies/contract';
import { parseDuration } from '../../api/duration.js';
import { FINALIZER, FORCE_DELETE_ANNOTATION } from '../../api/group.js';
import type { ProxyObject, ProxySpec } from '../../api/proxy.js';
import { ProxySpecError, validateProxySpec } from '../../api/validate.js';
import { EGRESS_VERIFIED, verifyEgress } from '../../probe/egress-verify.js';
import type { CreateOperationView } from '../operations/create-operations.js';
import { ConditionType, getCondition, removeCondition } from './conditions.js';
import { instanceSpecHash } from './instance-hash.js';
import { LifecyclePass } from './instance-lifecycle.js';
import { isCreateOutcome, rfc3339, Stop } from './pass-base.js';
import type { Outcome, ProviderHandle, ReconcileContext, ReconcileResult, Requeue } from './types.js';

/**
 * One level-triggered pass over a Proxy: reads what the provider says, makes at most the calls
 * needed to move one step toward the spec, and returns the status to write, the finalizer change
 * and when to look again. It never writes anything itself, so the same function serves the
 * cluster and a standalone file store.
 */
export async function reconcileProxy(proxy: ProxyObject, ctx: ReconcileContext): Promise<ReconcileResult> {
  return new Pass(proxy, ctx).run();
}

class Pass extends LifecyclePass {
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
      const loadFailure = this.ctx.providerLoadFailure?.(providerName);
      const reason = loadFailure ? 'ProviderLoadFailed' : 'ProviderNotConfigured';
      const message = loadFailure
        ? `cannot load ${loadFailure}`
        : `provider ${JSON.stringify(providerName)} is not configured (configured: ${names.join(', ') || 'none'})`;
      this.event('Warning', reason, message);
      this.status.phase = 'Failed';
      this.status.message = message;
      this.status.failure = { generation: this.generation, providerConfig: '' };
      this.condition(ConditionType.Provisioned, 'False', reason, message);
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
    // A provider that runs several proxies on one address allocates their ports: the status
    // says which, so readers of the Proxy (the gateway) need not guess from spec.port.
    if (inst.port !== undefined) this.status.port = inst.port;
    else delete this.status.port;
    this.recordAssignedEgress(inst.egress);
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

  // ---------------------------------------------------------------- probe

  async probeStep(spec: ProxySpec, host: string, port: number) {
    const probe =
      spec.probe ??
      (this.ctx.defaultProbeTarget
        ? { target: this.ctx.defaultProbeTarget, interval: '60s', timeout: '10s', retries: 2 }
        : undefined);
    if (!probe) {
      if (this.status.phase !== 'Ready')
        this.event('Normal', 'Ready', `${host}:${port} runs; no probe configured`);
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
      await this.verifyEgress(probe, host, port, result.egressIP);
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

  /** The provider's assignment, copied into the status; dropped (with its verdict) when gone. */
  recordAssignedEgress(egress: InstanceEgress | undefined): void {
    const assigned: InstanceEgress = {};
    if (egress?.ipv4) assigned.ipv4 = egress.ipv4;
    if (egress?.ipv6) assigned.ipv6 = egress.ipv6;
    if (egress?.ipv6Prefix) assigned.ipv6Prefix = egress.ipv6Prefix;
    if (Object.keys(assigned).length > 0) this.status.assignedEgress = assigned;
    else delete this.status.assignedEgress;
  }

  /**
   * Sets EgressVerified from what the probe saw against the assignment. With both families
   * assigned and an IPv6 target configured, that target is probed too: one target only ever
   * shows one family. No assignment, no condition.
   */
  async verifyEgress(
    probe: { targetIPv6?: string; timeout: string; retries: number },
    host: string,
    port: number,
    seen: string | undefined,
  ): Promise<void> {
    const assigned = this.status.assignedEgress;
    const seenList = [seen];
    if (assigned?.ipv4 && (assigned.ipv6 || assigned.ipv6Prefix) && probe.targetIPv6) {
      const v6 = await this.ctx.probe(
        {
          host,
          port,
          target: probe.targetIPv6,
          timeoutMs: parseDuration(probe.timeout),
          retries: probe.retries,
        },
        this.ctx.signal,
      );
      seenList.push(v6.ok ? v6.egressIP : undefined);
    }
    const verdict = verifyEgress(assigned, seenList);
    if (!verdict) {
      this.status.conditions = removeCondition(this.status.conditions, EGRESS_VERIFIED);
      return;
    }
    const previous = getCondition(this.status.conditions, EGRESS_VERIFIED);
    if (verdict.status === 'False' && previous?.reason !== verdict.reason) {
      this.event('Warning', verdict.reason, verdict.message);
    }
    this.condition(EGRESS_VERIFIED, verdict.status, verdict.reason, verdict.message);
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
      const pending = this.status.pendingCreate;
      if (op.state === 'queued' && (!pending || ops.untouched() === pending.startedTime)) {
        // Not started, and no create ran under this marker anywhere: nothing made, so it can go.
        // (One finishing an earlier process's create is what tells what to delete: it stays.)
        ops.cancel('the Proxy is being deleted');
        this.status.message = 'stopping the queued create before deleting';
        return { requeue: { type: 'after', ms: this.cfg.pollIntervalMs }, outcome: 'blocked' };
      }
      if (op.settle) {
        // Run by this deletion to learn what an interrupted create made: it ends by itself (or at
        // its deadline) and reconciles the key when it settles.
        this.status.message = 'finishing the interrupted create to learn what it made, then deleting that';
        return { requeue: { type: 'after', ms: this.cfg.blockedRetryMs }, outcome: 'blocked' };
      }
      // A create that hangs must not hold the deletion for as long as its deadline: after a short
      // grace it is aborted. Cut short, it could leave part of an instance behind, so the next
      // passes run it once more (it continues where it stopped, contract 2.1) to learn the ID,
      // and delete that.
      const at = ops.cancelAfter('the Proxy is being deleted', this.cfg.abortGraceMs);
      this.status.message = `waiting for the create in flight to finish (aborted at ${rfc3339(new Date(at ?? this.now.getTime()))} unless it finishes first), then deleting what it made`;
      return { requeue: { type: 'after', ms: this.cfg.blockedRetryMs }, outcome: 'blocked' };
    }
    const made = ops?.take();
    if (!id && made?.state === 'succeeded' && made.id) {
      this.status.providerID = made.id;
      this.status.instanceProvider = made.provider;
      delete this.status.pendingCreate;
      return this.deleting();
    }
    if (!id) return this.settlePendingCreate(made);
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

  /**
   * A Proxy being deleted without an instance ID: when `status.pendingCreate` says a create was
   * started (by this process or one before it) and may have made part of an instance, that
   * create is run to its end to learn the ID, and the next pass deletes it. Only a create that
   * answered Permanent or QuotaExceeded (nothing of ours was made), or a marker this process
   * wrote with no create run since, lets the finalizer go at once.
   */
  async settlePendingCreate(
    made: CreateOperationView | undefined,
  ): Promise<{ requeue: Requeue; outcome: Outcome; finalizer?: 'add' | 'remove' }> {
    const ops = this.ctx.createOps;
    const pending = this.status.pendingCreate;
    const done = () => {
      delete this.status.pendingCreate;
      ops?.forget();
      return {
        requeue: { type: 'none' } as Requeue,
        outcome: 'deleted' as Outcome,
        finalizer: 'remove' as const,
      };
    };
    if (!pending || !ops || ops.untouched() === pending.startedTime) return done();
    const ran = made?.state === 'failed' && made.runningSince !== undefined;
    if (ran && isCreateOutcome(made.error)) return done();
    const handle = this.ctx.provider(pending.provider);
    if (!handle) {
      const message = `cannot finish the create started through provider ${JSON.stringify(pending.provider)} (not configured) to delete what it made; set annotation ${FORCE_DELETE_ANNOTATION}=true to remove the finalizer without it`;
      if (this.status.message !== message) this.event('Warning', 'DeleteBlocked', message);
      this.status.message = message;
      return { requeue: { type: 'after', ms: this.cfg.blockedRetryMs }, outcome: 'blocked' };
    }
    if (ran) {
      const e = ProviderError.isInstance(made.error)
        ? made.error.message
        : made.error instanceof Error
          ? made.error.message
          : String(made.error);
      this.status.message = made.cancelled
        ? `the create in flight was aborted (${e}); running it once more to learn what it made, then deleting that`
        : `finishing the interrupted create before deleting failed: ${e}; retrying`;
      return { requeue: { type: 'backoff', tier: 'transient' }, outcome: 'transient' };
    }
    let spec: ProxySpec;
    try {
      spec = validateProxySpec(this.proxy.spec);
    } catch (err) {
      if (!ProxySpecError.isInstance(err)) throw err;
      // No create was possible from this spec, so nothing was made by one.
      return done();
    }
    const req = await this.createRequest(spec, { cloudInitOptional: true });
    const token = `${this.proxy.metadata.uid ?? ''}:${pending.instanceSpecHash}`;
    this.startCreate(ops, req, handle, token, pending.instanceSpecHash, true);
    this.status.message = `finishing the interrupted create of ${req.name} through provider ${handle.name}, then deleting what it made`;
    return { requeue: { type: 'after', ms: this.cfg.blockedRetryMs }, outcome: 'blocked' };
  }
}
