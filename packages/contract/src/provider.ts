import type { CallOptions } from './call-options.js';
import type { CheckResult } from './check-result.js';
import type { CreateRequest } from './create-request.js';
import type { Instance, SecondaryResource } from './instance.js';
import type { ProviderProfile } from './profile.js';

/**
 * A backend that creates, reads, deletes and lists proxy machines.
 *
 * Rules every implementation keeps (docs/contract.md has the full text):
 * - `create` is idempotent, keyed by `req.name`: the same request returns the same ID and leaves
 *   one instance. An existing instance with another owner's UID, or without our mark, is refused
 *   as Permanent and left untouched.
 * - `delete` of something absent succeeds.
 * - `listByTag` returns only instances carrying the managed mark; garbage collection relies on
 *   `id`, `uid`, `createdAt` and `installation` of its results, nothing else.
 * - Every error is a `ProviderError` carrying the configured provider name.
 * - Every call honours `opts.signal` and returns promptly once it is aborted.
 */
export interface Provider {
  /** The configured name of this provider entry (used in every error and log line). */
  readonly name: string;
  /** The provider type (`kvm2`, `proxmox`, ...). */
  readonly type: string;
  /** How this provider meets the contract, axis by axis. */
  readonly profile: ProviderProfile;
  /** Creates (or adopts) the instance for `req` and returns its provider ID. */
  create(req: CreateRequest, opts?: CallOptions): Promise<string>;
  /** Reads an instance; NotFound when it does not exist (or is not ours). */
  get(id: string, opts?: CallOptions): Promise<Instance>;
  /** Deletes an instance and its secondary resources; absent is success. */
  delete(id: string, opts?: CallOptions): Promise<void>;
  /** Every instance carrying the managed mark. */
  listByTag(opts?: CallOptions): Promise<Instance[]>;
  /** Secondary resources (volumes, ISOs) left without their machine; present when the profile's `secondaryResources` is `explicit-listable`. */
  listSecondary?(opts?: CallOptions): Promise<SecondaryResource[]>;
  /** Deletes one secondary resource listed by `listSecondary`; absent is success. */
  deleteSecondary?(id: string, opts?: CallOptions): Promise<void>;
  /** Releases connections and timers. Safe to call twice. */
  close?(): Promise<void>;
}

/** Reports a provider's health, one result per target (host, node, project) in config order. */
export interface Checker {
  check(opts?: CallOptions): Promise<CheckResult[]>;
}
