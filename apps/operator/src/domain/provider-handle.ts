import type { CallOptions, Provider } from '@egress-proxies/contract';

/** A configured provider as the reconciler sees it. */
export interface ProviderHandle {
  /** The configured entry name. */
  name: string;
  type: string;
  provider: Provider;
  /**
   * A digest of the entry's config: a Permanent failure stays latched while it is unchanged and
   * is released when the entry changes.
   */
  fingerprint: string;
  /** The files the entry reads credentials from; a change releases a latched failure too. */
  credentialFiles?: readonly string[];
  /**
   * The entry's `createTimeout` in ms: the deadline of its creates, over `--create-timeout`.
   * Kept outside the fingerprint (a new deadline neither rebuilds the provider nor releases a
   * latch), so a reload updates it on the live handle.
   */
  createTimeoutMs?: number;
}

/** Wraps each provider call (spans, metrics, logging); the default calls straight through. */
export type ProviderCall = <T>(
  handle: ProviderHandle,
  op: string,
  fn: (opts: CallOptions) => Promise<T>,
  signal?: AbortSignal,
) => Promise<T>;
