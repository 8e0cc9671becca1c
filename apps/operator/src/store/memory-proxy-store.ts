import type { ProxyObject, ProxyStatus } from '../api/proxy.js';
import type { EventType } from '../reconcile/types.js';
import { type ProxyKey, type ProxyStore, proxyKey } from './proxy-store.js';

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
export class MemoryProxyStore implements ProxyStore {
  readonly #objects = new Map<ProxyKey, ProxyObject>();
  readonly #listeners = new Set<(key: ProxyKey) => void>();
  readonly events: RecordedEvent[] = [];
  readonly secrets = new Map<string, string>();
  #rv = 0;
  /** Status writes made, for tests. */
  statusWrites = 0;

  async start(): Promise<void> {}
  async stop(): Promise<void> {}

  list(): ProxyObject[] {
    return [...this.#objects.values()];
  }
  get(key: ProxyKey): ProxyObject | undefined {
    return this.#objects.get(key);
  }
  onChange(fn: (key: ProxyKey) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** Creates or replaces a Proxy's spec (generation moves on a spec change). */
  put(proxy: ProxyObject): ProxyObject {
    const key = proxyKey(proxy);
    const old = this.#objects.get(key);
    const next = structuredClone(proxy);
    next.metadata.uid = old?.metadata.uid ?? next.metadata.uid ?? `uid-${++this.#rv}`;
    next.metadata.generation =
      old && JSON.stringify(old.spec) !== JSON.stringify(next.spec)
        ? (old.metadata.generation ?? 1) + 1
        : (old?.metadata.generation ?? 1);
    next.metadata.finalizers = old?.metadata.finalizers ?? next.metadata.finalizers ?? [];
    if (old?.status) next.status = old.status;
    return this.#commit(next);
  }

  /** Marks a Proxy deleted; it goes once no finalizer holds it. */
  delete(key: ProxyKey): void {
    const o = this.#objects.get(key);
    if (!o) return;
    if (!o.metadata.finalizers?.length) {
      this.#objects.delete(key);
      this.#notify(key);
      return;
    }
    const next = structuredClone(o);
    next.metadata.deletionTimestamp ??= new Date().toISOString();
    this.#commit(next);
  }

  async updateStatus(proxy: ProxyObject, status: ProxyStatus): Promise<ProxyObject> {
    const cur = this.#current(proxy);
    this.statusWrites += 1;
    return this.#commit({ ...structuredClone(cur), status: structuredClone(status) });
  }

  async addFinalizer(proxy: ProxyObject, finalizer: string): Promise<ProxyObject> {
    const cur = structuredClone(this.#current(proxy));
    if (!cur.metadata.finalizers?.includes(finalizer))
      cur.metadata.finalizers = [...(cur.metadata.finalizers ?? []), finalizer];
    return this.#commit(cur);
  }

  async removeFinalizer(proxy: ProxyObject, finalizer: string): Promise<void> {
    const key = proxyKey(proxy);
    const o = this.#objects.get(key);
    if (!o) return;
    const cur = structuredClone(o);
    cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    if (cur.metadata.deletionTimestamp && cur.metadata.finalizers.length === 0) {
      this.#objects.delete(key);
      this.#notify(key);
      return;
    }
    this.#commit(cur);
  }

  async event(proxy: ProxyObject, type: EventType, reason: string, message: string): Promise<void> {
    this.events.push({ key: proxyKey(proxy), type, reason, message });
  }

  async readSecret(namespace: string, name: string, key: string): Promise<string> {
    const v = this.secrets.get(`${namespace}/${name}/${key}`);
    if (v === undefined) throw new Error(`Secret ${namespace}/${name} has no key ${JSON.stringify(key)}`);
    return v;
  }

  #current(proxy: ProxyObject): ProxyObject {
    const o = this.#objects.get(proxyKey(proxy));
    if (!o) throw Object.assign(new Error(`${proxyKey(proxy)} not found`), { code: 404 });
    return o;
  }

  #commit(next: ProxyObject): ProxyObject {
    next.metadata.resourceVersion = String(++this.#rv);
    const key = proxyKey(next);
    this.#objects.set(key, next);
    this.#notify(key);
    return structuredClone(next);
  }

  #notify(key: ProxyKey): void {
    for (const fn of this.#listeners) fn(key);
  }
}
