import { CoordinationV1Api, type KubeConfig, type V1Lease, V1MicroTime } from '@kubernetes/client-node';
import type { OpLogger } from '../domain/op-logger.js';
import { silentOpLogger } from '../domain/op-logger.js';
import { kubeCall } from './kube-call-options.js';
import { describeKubeError, isKubeConflict, isKubeNotFound } from './kube-errors.js';

export interface LeaseElectorOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  name: string;
  /** This process's identity (pod name plus a random suffix). */
  identity: string;
  /** How long a lease holds without renewal; 15 s when absent. */
  leaseDurationMs?: number;
  /** A leader that could not renew for this long steps down; 10 s when absent. */
  renewDeadlineMs?: number;
  /** How often to try to acquire or renew; 2 s when absent. */
  retryPeriodMs?: number;
  onStartedLeading: () => void;
  onStoppedLeading: () => void;
  logger?: OpLogger;
}

/**
 * Leader election on a `coordination.k8s.io/v1` Lease, the client-go way: the holder renews every
 * retry period; others take over once `renewTime + leaseDuration` has passed. Every write carries
 * the resourceVersion read, so two candidates cannot both win a round.
 */
export class LeaseElector {
  readonly #api: CoordinationV1Api;
  readonly #log: OpLogger;
  #leading = false;
  #lastRenew = 0;
  #timer?: NodeJS.Timeout;
  #stopped = false;
  /** When this process first saw the current holder's renewTime (local clock, not the holder's). */
  #observed?: { holder: string; renewTime: string; at: number };

  constructor(private readonly opts: LeaseElectorOptions) {
    this.#api = opts.kubeConfig.makeApiClient(CoordinationV1Api);
    this.#log = opts.logger ?? silentOpLogger;
  }

  /** One lease call may take at most the renew deadline: a hung request must not keep a stale leader. */
  #call() {
    return kubeCall({ timeoutMs: this.opts.renewDeadlineMs ?? 10_000 });
  }

  get leading(): boolean {
    return this.#leading;
  }

  start(signal?: AbortSignal): void {
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    void this.#loop();
  }

  /** Stops campaigning; a leader releases the lease so a successor need not wait for it to expire. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#leading) {
      // A deliberate stop: no onStoppedLeading (the caller is already shutting down).
      this.#leading = false;
      try {
        const lease = await this.#api.readNamespacedLease(
          { name: this.opts.name, namespace: this.opts.namespace },
          this.#call(),
        );
        if (lease.spec?.holderIdentity === this.opts.identity) {
          lease.spec.holderIdentity = undefined;
          lease.spec.renewTime = undefined;
          lease.spec.acquireTime = undefined;
          await this.#api.replaceNamespacedLease(
            { name: this.opts.name, namespace: this.opts.namespace, body: lease },
            this.#call(),
          );
        }
      } catch (err) {
        this.#log.debug({ error: describeKubeError(err) }, 'releasing the lease failed');
      }
    }
  }

  async #loop(): Promise<void> {
    if (this.#stopped) return;
    try {
      const ok = await this.tryAcquireOrRenew();
      if (ok) this.#lastRenew = Date.now();
    } catch (err) {
      this.#log.debug({ error: describeKubeError(err) }, 'lease round failed');
    }
    if (this.#leading && Date.now() - this.#lastRenew > (this.opts.renewDeadlineMs ?? 10_000)) {
      this.#log.warn({ lease: this.opts.name }, 'could not renew the lease in time; stepping down');
      this.#setLeading(false);
    }
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#loop(), this.opts.retryPeriodMs ?? 2_000);
    this.#timer.unref();
  }

  #setLeading(on: boolean): void {
    if (on === this.#leading) return;
    this.#leading = on;
    this.#log.info(
      { lease: `${this.opts.namespace}/${this.opts.name}`, identity: this.opts.identity, leading: on },
      on ? 'became leader' : 'lost leadership',
    );
    if (on) this.opts.onStartedLeading();
    else this.opts.onStoppedLeading();
  }

  /** One round; true when this process holds the lease afterwards. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity } = this.opts;
    const durationS = Math.ceil((this.opts.leaseDurationMs ?? 15_000) / 1000);
    const now = new V1MicroTime();
    let lease: V1Lease;
    try {
      lease = await this.#api.readNamespacedLease({ name, namespace }, this.#call());
    } catch (err) {
      if (!isKubeNotFound(err)) throw err;
      try {
        await this.#api.createNamespacedLease(
          {
            namespace,
            body: {
              metadata: { name, namespace },
              spec: {
                holderIdentity: identity,
                leaseDurationSeconds: durationS,
                acquireTime: now,
                renewTime: now,
                leaseTransitions: 0,
              },
            },
          },
          this.#call(),
        );
      } catch (e) {
        if (isKubeConflict(e)) return false;
        throw e;
      }
      this.#setLeading(true);
      return true;
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    if (holder && holder !== identity) {
      const renew = spec.renewTime ? new Date(spec.renewTime).toISOString() : '';
      // Expiry is judged on this process's clock from when it last saw the record change, so
      // clock skew between candidates cannot hand the lease over early.
      if (!this.#observed || this.#observed.holder !== holder || this.#observed.renewTime !== renew) {
        this.#observed = { holder, renewTime: renew, at: Date.now() };
      }
      const ttl = (spec.leaseDurationSeconds ?? durationS) * 1000;
      if (Date.now() - this.#observed.at < ttl) {
        this.#setLeading(false);
        return false;
      }
    }
    const taking = holder !== identity;
    lease.spec = {
      ...spec,
      // Read back as plain Dates; the API server wants microsecond precision on write.
      ...(spec.acquireTime ? { acquireTime: new V1MicroTime(spec.acquireTime) } : {}),
      holderIdentity: identity,
      leaseDurationSeconds: durationS,
      renewTime: now,
      ...(taking
        ? { acquireTime: now, leaseTransitions: (spec.leaseTransitions ?? 0) + (holder ? 1 : 0) }
        : {}),
    };
    try {
      await this.#api.replaceNamespacedLease({ name, namespace, body: lease }, this.#call());
    } catch (err) {
      if (isKubeConflict(err)) return false;
      throw err;
    }
    this.#setLeading(true);
    return true;
  }
}
