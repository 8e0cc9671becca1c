import type { ProxyObject, ProxyStatus } from '../../api/proxy.js';
import type { EventType } from '../../domain/events.js';
import { type ProxyKey, type ProxyStore, proxyKey } from './proxy-store.js';

/**
 * The API server's bookkeeping for stores that have no API server: a resourceVersion moved on by
 * every write, the status and finalizer writes, and a deletion held back until the last finalizer
 * goes. The reconciler relies on exactly these rules, so the in-memory store (tests, benchmarks)
 * and the standalone file store share one copy of them; each says where the objects come from,
 * what a reader gets, and what else a change touches.
 */
export abstract class EmulatedProxyStore implements ProxyStore {
  protected readonly objects = new Map<ProxyKey, ProxyObject>();
  readonly #listeners = new Set<(key: ProxyKey) => void>();
  #rv = 0;

  abstract start(signal?: AbortSignal): Promise<void>;
  abstract stop(): Promise<void>;
  abstract list(): ProxyObject[];
  abstract get(key: ProxyKey): ProxyObject | undefined;
  abstract event(proxy: ProxyObject, type: EventType, reason: string, message: string): Promise<void>;
  abstract readSecret(namespace: string, name: string, key: string): Promise<string>;

  onChange(fn: (key: ProxyKey) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** Marks a Proxy deleted; it goes once no finalizer holds it. */
  delete(key: ProxyKey): void {
    const o = this.objects.get(key);
    if (!o) return;
    if (!o.metadata.finalizers?.length) {
      this.remove(key);
      return;
    }
    const next = structuredClone(o);
    next.metadata.deletionTimestamp ??= new Date().toISOString();
    this.commit(next);
  }

  async updateStatus(proxy: ProxyObject, status: ProxyStatus): Promise<ProxyObject> {
    const cur = this.#current(proxy);
    return this.commit({ ...structuredClone(cur), status: structuredClone(status) });
  }

  async addFinalizer(proxy: ProxyObject, finalizer: string): Promise<ProxyObject> {
    const cur = structuredClone(this.#current(proxy));
    if (!cur.metadata.finalizers?.includes(finalizer))
      cur.metadata.finalizers = [...(cur.metadata.finalizers ?? []), finalizer];
    return this.commit(cur);
  }

  async removeFinalizer(proxy: ProxyObject, finalizer: string): Promise<void> {
    const key = proxyKey(proxy);
    const o = this.objects.get(key);
    if (!o) return;
    const cur = structuredClone(o);
    cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    if (cur.metadata.deletionTimestamp && cur.metadata.finalizers.length === 0) {
      this.remove(key);
      this.finalized(key);
      return;
    }
    this.commit(cur);
  }

  /** The next resourceVersion (also a source of unique numbers for subclasses). */
  protected nextVersion(): number {
    return ++this.#rv;
  }

  /** Stores `next` under a new resourceVersion and announces it; a copy for the caller. */
  protected commit(next: ProxyObject): ProxyObject {
    next.metadata.resourceVersion = String(this.nextVersion());
    const key = proxyKey(next);
    this.objects.set(key, next);
    this.changed(key);
    return structuredClone(next);
  }

  /** Drops a Proxy for good and announces it. */
  protected remove(key: ProxyKey): void {
    this.objects.delete(key);
    this.changed(key);
  }

  /** Tells the onChange listeners; subclasses that also persist or display extend it. */
  protected changed(key: ProxyKey): void {
    for (const fn of this.#listeners) fn(key);
  }

  /** Called after a deleting Proxy's last finalizer went and the Proxy with it. */
  protected finalized(_key: ProxyKey): void {}

  #current(proxy: ProxyObject): ProxyObject {
    const o = this.objects.get(proxyKey(proxy));
    if (!o) throw Object.assign(new Error(`${proxyKey(proxy)} not found`), { code: 404 });
    return o;
  }
}
