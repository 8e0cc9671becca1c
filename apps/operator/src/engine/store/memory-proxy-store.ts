import type { ProxyObject, ProxyStatus } from '../../api/proxy.js';
import type { EventType } from '../../domain/events.js';
import { EmulatedProxyStore } from './emulated-proxy-store.js';
import { type ProxyKey, proxyKey } from './proxy-store.js';

export interface RecordedEvent {
  key: ProxyKey;
  type: EventType;
  reason: string;
  message: string;
}

/**
 * Proxies held in memory, with the API server's bookkeeping (resourceVersion, generation,
 * deletion held back by finalizers). The seed of the standalone store and the benchmark's store.
 */
export class MemoryProxyStore extends EmulatedProxyStore {
  readonly events: RecordedEvent[] = [];
  readonly secrets = new Map<string, string>();
  /** Status writes made, for tests. */
  statusWrites = 0;

  async start(): Promise<void> {}
  async stop(): Promise<void> {}

  // The stored objects themselves, not copies: readers must not change them.
  list(): ProxyObject[] {
    return [...this.objects.values()];
  }
  get(key: ProxyKey): ProxyObject | undefined {
    return this.objects.get(key);
  }

  /** Creates or replaces a Proxy's spec (generation moves on a spec change). */
  put(proxy: ProxyObject): ProxyObject {
    const key = proxyKey(proxy);
    const old = this.objects.get(key);
    const next = structuredClone(proxy);
    next.metadata.uid = old?.metadata.uid ?? next.metadata.uid ?? `uid-${this.nextVersion()}`;
    next.metadata.generation =
      old && JSON.stringify(old.spec) !== JSON.stringify(next.spec)
        ? (old.metadata.generation ?? 1) + 1
        : (old?.metadata.generation ?? 1);
    next.metadata.finalizers = old?.metadata.finalizers ?? next.metadata.finalizers ?? [];
    if (old?.status) next.status = old.status;
    return this.commit(next);
  }

  override async updateStatus(proxy: ProxyObject, status: ProxyStatus): Promise<ProxyObject> {
    const updated = await super.updateStatus(proxy, status);
    this.statusWrites += 1;
    return updated;
  }

  async event(proxy: ProxyObject, type: EventType, reason: string, message: string): Promise<void> {
    this.events.push({ key: proxyKey(proxy), type, reason, message });
  }

  async readSecret(namespace: string, name: string, key: string): Promise<string> {
    const v = this.secrets.get(`${namespace}/${name}/${key}`);
    if (v === undefined) throw new Error(`Secret ${namespace}/${name} has no key ${JSON.stringify(key)}`);
    return v;
  }
}
