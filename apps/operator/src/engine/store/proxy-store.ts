import type { ProviderHealthStatus } from '../../api/provider-health.js';
import type { ProxyObject, ProxyStatus } from '../../api/proxy.js';
import type { EventType } from '../../domain/events.js';

/** `namespace/name`: the queue key of a Proxy. */
export type ProxyKey = string;

export const proxyKey = (p: { metadata: { namespace: string; name: string } }): ProxyKey =>
  `${p.metadata.namespace}/${p.metadata.name}`;

export function splitKey(key: ProxyKey): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/**
 * How Proxies are read and written. The kube store reads through an informer and writes through
 * the API server; a standalone store reads a file. The reconciler and the controller use only this.
 */
export interface ProxyStore {
  /** Starts watching; resolves once the first full list is in the cache. */
  start(signal?: AbortSignal): Promise<void>;
  stop(): Promise<void>;
  /** Every Proxy in the cache. */
  list(): ProxyObject[];
  get(key: ProxyKey): ProxyObject | undefined;
  /** Called with the key of every Proxy added, changed or deleted. */
  onChange(fn: (key: ProxyKey) => void): () => void;
  /** Writes status (the status subresource); returns the updated object. */
  updateStatus(proxy: ProxyObject, status: ProxyStatus, signal?: AbortSignal): Promise<ProxyObject>;
  addFinalizer(proxy: ProxyObject, finalizer: string, signal?: AbortSignal): Promise<ProxyObject>;
  removeFinalizer(proxy: ProxyObject, finalizer: string, signal?: AbortSignal): Promise<void>;
  /** Records an event on the Proxy; failures are swallowed (events are best effort). */
  event(proxy: ProxyObject, type: EventType, reason: string, message: string): Promise<void>;
  /** Where clients reach a running Proxy (`ReconcileResult.endpoint`); stores that show addresses keep it. */
  recordEndpoint?(key: ProxyKey, endpoint: { host: string; port: number }): void;
  /** Reads cloud-init user-data from a Secret in the Proxy's namespace. */
  readSecret(namespace: string, name: string, key: string, signal?: AbortSignal): Promise<string>;
  /**
   * One line for a failed pass, in the store's own terms (the kube store names the API server's
   * status); the error's message when absent. Never the request body.
   */
  describeError?(err: unknown): string;
}

/** Where ProviderHealth status goes. */
export interface HealthStore {
  /** Creates the ProviderHealth object when missing and writes its status. */
  writeHealth(provider: string, status: ProviderHealthStatus, signal?: AbortSignal): Promise<void>;
  /** Removes ProviderHealth objects of providers no longer configured. */
  pruneHealth(keep: readonly string[], signal?: AbortSignal): Promise<void>;
  /** An event about a provider (GC deletions), on its ProviderHealth object. */
  providerEvent(provider: string, type: EventType, reason: string, message: string): Promise<void>;
}
