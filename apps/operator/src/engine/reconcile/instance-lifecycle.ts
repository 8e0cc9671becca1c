import { type CallOptions, type CreateRequest, type Instance, instanceName } from '@egress-proxies/contract';
import { API_VERSION, PROXY } from '../../api/group.js';
import type { ProxySpec } from '../../api/proxy.js';
import type { CreateOperationSlot, CreateOperationView } from '../operations/create-operations.js';
import { progressLogger } from '../operations/progress-lines.js';
import { ConditionType } from './conditions.js';
import { PassBase, rfc3339, Stop } from './pass-base.js';
import { formatWindow, readinessWindowMs, STOPPED_GRACE_MS } from './readiness-window.js';
import type { Outcome, ProviderHandle, Requeue } from './types.js';

/** What happens to an instance over time: tracked creates, the readiness window, Stopped grace. */
export abstract class LifecyclePass extends PassBase {
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

  /**
   * A create run as a tracked operation: started by one pass, shown in the status while it
   * runs (with the progress the provider reports), its result taken by the pass after it
   * settled. Throws `Stop` until then.
   *
   * The operation lives in this process only. `status.pendingCreate` is written by the pass
   * before the one that starts it, so from then on every process knows a create may have made
   * part of an instance: a restarted operator starts the create again (it continues where the
   * last attempt stopped, contract 2.1), and a deletion finishes it before deleting what it made.
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
        // The earlier create may finish within a short grace (then its instance is recorded and
        // replaced); one that hangs is aborted then, so the new spec is not held up for as long
        // as the create's deadline. What it made under the same name is continued by the next
        // create (contract 2.1) or replaced.
        const at = ops.cancelAfter(
          `the spec of the Proxy changed while ${name} was being created`,
          this.cfg.abortGraceMs,
        );
        this.status.message = `the spec changed while ${name} was being created: the create for the earlier spec is aborted at ${rfc3339(new Date(at ?? this.now.getTime()))} unless it finishes first`;
        this.condition(ConditionType.Provisioned, 'False', 'SpecChanged', this.status.message);
        // The operation reconciles the key again when it settles.
        throw new Stop({ type: 'after', ms: this.cfg.blockedRetryMs, keepBackoff: true }, 'ok');
      }
      if (op.state === 'succeeded' && op.id) {
        // An instance of the earlier spec exists: recorded with its own hash, so the next pass replaces it.
        this.recordCreated(op.id, op.provider, op.hash);
        throw new Stop({ type: 'after', ms: 0 }, 'ok');
      }
      if (op.cancelled) {
        this.event(
          'Warning',
          'CreateAborted',
          `the create of ${name} for the earlier spec was aborted after ${formatWindow(this.cfg.abortGraceMs)} (the spec changed); creating it for the new spec`,
        );
      }
      op = undefined;
    }
    if (!op) {
      const pending = this.status.pendingCreate;
      if (pending?.provider !== handle.name || pending.instanceSpecHash !== hash) {
        const startedTime = rfc3339(this.now);
        this.status.pendingCreate = { provider: handle.name, instanceSpecHash: hash, startedTime };
        ops.mark(startedTime);
        this.status.message = `starting the create of ${name} through provider ${handle.name}`;
        this.condition(ConditionType.Provisioned, 'False', 'Creating', this.status.message);
        throw new Stop({ type: 'after', ms: 0, keepBackoff: true }, 'ok');
      }
      op = this.startCreate(ops, await this.createRequest(spec), handle, token, hash);
    }
    if (op.state === 'failed') this.providerFailure(op.error, `create ${name}`, handle);
    if (op.state === 'succeeded') return op.id!;
    const since = (ms: number) => rfc3339(new Date(ms));
    if (op.state === 'queued') {
      this.status.message = `create of ${name} is queued behind ${op.aheadAtQueue} other creates of provider ${handle.name} (since ${since(op.queuedAt)})`;
      this.condition(ConditionType.Provisioned, 'False', 'CreateQueued', this.status.message);
    } else {
      this.status.message = `creating ${name} through provider ${handle.name} since ${since(op.runningSince ?? op.queuedAt)}`;
      if (op.progress) this.status.progress = op.progress;
      this.condition(
        ConditionType.Provisioned,
        'False',
        'Creating',
        op.progress ? `${this.status.message}: ${op.progress}` : this.status.message,
      );
    }
    // The operation reconciles the key again when it starts running, when it reports progress
    // and when it settles.
    throw new Stop({ type: 'after', ms: this.cfg.blockedRetryMs, keepBackoff: true }, 'ok');
  }

  /** Starts the tracked create of `req`; the provider's progress lines reach the operation. */
  startCreate(
    ops: CreateOperationSlot,
    req: CreateRequest,
    handle: ProviderHandle,
    token: string,
    hash: string,
    settle = false,
  ): CreateOperationView {
    return ops.start(
      { provider: handle.name, token, hash, ...(settle ? { settle } : {}) },
      (signal, progress) => {
        const fn = (o: CallOptions) =>
          handle.provider.create(req, { ...o, logger: progressLogger(o.logger, progress) });
        return this.ctx.call ? this.ctx.call(handle, 'create', fn, signal) : fn({ signal });
      },
    );
  }

  /**
   * The create request of the Proxy. With `cloudInitOptional` (a create run only to learn what
   * to delete), a cloud-init Secret that cannot be read is left out instead of failing.
   */
  async createRequest(spec: ProxySpec, o: { cloudInitOptional?: boolean } = {}): Promise<CreateRequest> {
    const { metadata } = this.proxy;
    let cloudInit: string | undefined = spec.cloudInit?.inline;
    const ref = spec.cloudInit?.secretRef;
    if (ref) {
      try {
        cloudInit = await this.ctx.readCloudInitSecret(this.proxy, ref.name, ref.key, this.ctx.signal);
      } catch (err) {
        if (o.cloudInitOptional) return this.createRequest({ ...spec, cloudInit: undefined });
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
}
