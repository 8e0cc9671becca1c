import type { ProxyObject, ProxyStatus } from '../../api/proxy.js';
import type { ProxyEvent } from '../../domain/events.js';
import type { ProbeFn } from '../../domain/probe.js';
import type { ProviderCall, ProviderHandle } from '../../domain/provider-handle.js';
import type { CreateOperationSlot } from '../operations/create-operations.js';
import type { BackoffTier } from '../queue/rate-limiter.js';

// Shared with the rooms below the engine; named here too, as the reconcile API uses them.
export type { EventType, ProxyEvent } from '../../domain/events.js';
export type { ProbeFn, ProbeOutcome, ProbeRequest } from '../../domain/probe.js';
export type { ProviderCall, ProviderHandle } from '../../domain/provider-handle.js';

/** What one reconcile asks the controller to do next with the key. */
export type Requeue =
  | { type: 'none' }
  /**
   * `keepBackoff`: the pass only waits on a create (started, queued or running), which is no
   * success, so the key's failure count stays and the next failure backs off further.
   */
  | { type: 'after'; ms: number; keepBackoff?: boolean }
  | { type: 'backoff'; tier: BackoffTier };

/** How a reconcile ended, for metrics and logs. */
export type Outcome =
  | 'ok'
  | 'transient'
  | 'quota'
  | 'permanent'
  | 'latched'
  | 'deleted'
  | 'invalid'
  | 'blocked';

export interface ReconcileResult {
  /** The status to write; undefined when nothing should be written. */
  status?: ProxyStatus;
  finalizer?: 'add' | 'remove';
  requeue: Requeue;
  events: ProxyEvent[];
  outcome: Outcome;
  /**
   * Where clients reach the proxy, when this pass saw it running. The port can differ from
   * `spec.port` (a provider running several proxies on one address allocates ports), and the
   * Proxy status has no port field, so a store that shows addresses records this.
   */
  endpoint?: { host: string; port: number };
}

export interface ReconcileContext {
  now(): Date;
  /** The handle for a configured provider name, or undefined. */
  provider(name: string): ProviderHandle | undefined;
  /** Every configured provider name (for messages). */
  providerNames(): string[];
  /**
   * Why a provider entry of this name is configured but could not be loaded (its `module:`
   * failed), or undefined; so the Proxy's own status names the cause, not only the terminal.
   */
  providerLoadFailure?(name: string): string | undefined;
  /** This installation's id, written into every instance's mark. */
  installation: string;
  probe: ProbeFn;
  /** Reads the cloud-init user-data of a Proxy whose spec references a Secret. */
  readCloudInitSecret(proxy: ProxyObject, name: string, key: string, signal?: AbortSignal): Promise<string>;
  call?: ProviderCall;
  /** The probe target for Proxies without `spec.probe`; none when absent. */
  defaultProbeTarget?: string;
  /** How often an instance still provisioning is read again; 2 s when absent. */
  pollIntervalMs?: number;
  /** How soon a failed probe is retried; 10 s when absent (never later than the probe interval). */
  failedProbeRetryMs?: number;
  /** How often a healthy, settled Proxy is looked at again when it has no probe; 5 min when absent. */
  resyncMs?: number;
  /** How soon a blocked delete or a missing provider is looked at again; 60 s when absent. */
  blockedRetryMs?: number;
  signal?: AbortSignal;
  /** How long an instance may stay unusable after create; from the provider profile's readiness when absent. */
  readinessWindowMs?: number;
  /** A digest of the handle's credential files ('' without any); a change releases a latch. */
  credentialDigest?(handle: ProviderHandle): Promise<string>;
  /** How soon a latched Permanent failure is tried once more (a host-side fix); 30 min when absent. */
  latchRetryMs?: number;
  /**
   * How long a running create may still finish once its Proxy's spec changed or the Proxy is
   * being deleted, before it is aborted; 10 s when absent.
   */
  abortGraceMs?: number;
  /** How long a Stopped instance may come back by itself; 5 min when absent. */
  stoppedGraceMs?: number;
  /**
   * Where this key's creates run outside the pass (to the provider's own budget, bounded per
   * provider); without it a create runs inside the pass under `signal`.
   */
  createOps?: CreateOperationSlot;
}
