import { randomUUID } from 'node:crypto';
import { type FSWatcher, watch } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ProviderHealthStatus } from '../api/provider-health.js';
import type { ProxyObject } from '../api/proxy.js';
import { canonicalJson } from '../domain/canonical-json.js';
import type { EventType } from '../domain/events.js';
import { EmulatedProxyStore } from '../engine/store/emulated-proxy-store.js';
import { type HealthStore, type ProxyKey, proxyKey } from '../engine/store/proxy-store.js';
import {
  type DocumentIssue,
  formatIssue,
  type LoadedDocuments,
  loadProxyDocuments,
  type ProxyDocument,
} from './proxy-documents.js';
import {
  type ProviderRecord,
  type ProxyRecord,
  readState,
  type StandaloneState,
  writeState,
} from './state-file.js';

export interface FileProxyStoreOptions {
  /** Proxy files or directories. */
  paths: readonly string[];
  /** Where the state file lives. */
  stateDir: string;
  installation: string;
  /** Quiet time after a file event before rescanning; 200 ms when absent. */
  debounceMs?: number;
  /** A rescan on a timer, under fs.watch (which misses some editors' saves); 5 s when absent. */
  rescanMs?: number;
  /** Called after every scan with the document problems found (empty when none). */
  onIssues?: (issues: DocumentIssue[]) => void;
  /** Extra fields written into the state file (the demo target, the pools). */
  extra?: () => Pick<StandaloneState, 'demoTarget' | 'pools'>;
  onError?: (err: unknown) => void;
  /**
   * A pool controller: given each scan's documents, returns the member Proxies it wants added.
   * When it says a gateway cooled a member down (or let it back), the state file is written again,
   * so `status` from another shell shows it as `up --output json` does.
   */
  pools?: {
    update(loaded: LoadedDocuments): ProxyDocument[];
    onMemberChange?(listener: () => void): () => void;
  };
}

export interface StoredEvent {
  key: ProxyKey;
  type: EventType;
  reason: string;
  message: string;
  time: string;
}

/**
 * Proxies read from YAML files, with the API server's bookkeeping emulated: a uid and generation
 * per Proxy, finalizers that hold back a deletion (a Proxy removed from the files keeps its
 * entry, marked deleting, until the reconciler has deleted its instance), and status kept in
 * memory and in an atomically written state file, so a restart picks up where it stopped.
 */
export class FileProxyStore extends EmulatedProxyStore implements HealthStore {
  readonly #progress = new Map<ProxyKey, string>();
  readonly #health = new Map<string, ProviderHealthStatus>();
  readonly #sources = new Map<ProxyKey, string>();
  readonly #endpoints = new Map<ProxyKey, { host: string; port: number }>();
  readonly #watchers: FSWatcher[] = [];
  readonly events: StoredEvent[] = [];
  #issues: DocumentIssue[] = [];
  #debounce?: NodeJS.Timeout;
  #rescan?: NodeJS.Timeout;
  #persistTimer?: NodeJS.Timeout;
  #scanning: Promise<void> = Promise.resolve();
  #stopped = false;
  #unsubscribe?: () => void;

  constructor(private readonly opts: FileProxyStoreOptions) {
    super();
  }

  /** Restores the state file, scans the files once, then watches them. */
  async start(): Promise<void> {
    const state = readState(this.opts.stateDir);
    for (const r of state?.proxies ?? []) {
      const key = `${r.namespace}/${r.name}`;
      this.objects.set(key, {
        apiVersion: 'egress-proxies.dev/v1alpha1',
        kind: 'Proxy',
        metadata: {
          name: r.name,
          namespace: r.namespace,
          uid: r.uid,
          generation: r.generation,
          resourceVersion: String(this.nextVersion()),
          finalizers: r.finalizers,
          ...(r.deletionTimestamp ? { deletionTimestamp: r.deletionTimestamp } : {}),
        },
        spec: r.spec as ProxyObject['spec'],
        ...(r.status ? { status: r.status } : {}),
      });
      if (r.source) this.#sources.set(key, r.source);
      if (r.endpoint) this.#endpoints.set(key, r.endpoint);
    }
    await this.rescan();
    this.#unsubscribe = this.opts.pools?.onMemberChange?.(() => this.#persistSoon());
    for (const p of this.opts.paths) {
      const isDir = await stat(p).then(
        (s) => s.isDirectory(),
        () => false,
      );
      try {
        this.#watchers.push(watch(isDir ? p : dirname(p), { persistent: false }, () => this.#schedule()));
      } catch (err) {
        this.opts.onError?.(err);
      }
    }
    const tick = () => {
      if (this.#stopped) return;
      this.#rescan = setTimeout(() => {
        void this.rescan().finally(tick);
      }, this.opts.rescanMs ?? 5000);
      this.#rescan.unref();
    };
    tick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    for (const w of this.#watchers) w.close();
    clearTimeout(this.#debounce);
    clearTimeout(this.#rescan);
    await this.#scanning;
    this.flush();
  }

  #schedule(): void {
    if (this.#stopped) return;
    clearTimeout(this.#debounce);
    this.#debounce = setTimeout(() => void this.rescan(), this.opts.debounceMs ?? 200);
  }

  /** Reads the files now and applies what changed (scans never overlap). */
  rescan(): Promise<void> {
    this.#scanning = this.#scanning.then(() => this.#scan()).catch((err) => this.opts.onError?.(err));
    return this.#scanning;
  }

  issues(): DocumentIssue[] {
    return [...this.#issues];
  }

  async #scan(): Promise<void> {
    const loaded = await loadProxyDocuments(this.opts.paths);
    loaded.documents.push(...(this.opts.pools?.update(loaded) ?? []));
    this.#issues = loaded.issues;
    const unreadable = new Set(loaded.unreadable);
    const wanted = new Set<ProxyKey>();
    for (const doc of loaded.documents) {
      const key = proxyKey(doc.proxy);
      wanted.add(key);
      const source = `${doc.file}[${doc.index}]`;
      const old = this.objects.get(key);
      if (old?.metadata.deletionTimestamp) continue; // recreated once the deletion has finished
      this.#sources.set(key, source);
      if (!old) {
        this.commit({
          ...doc.proxy,
          metadata: { ...doc.proxy.metadata, uid: randomUUID(), generation: 1, finalizers: [] },
        });
        continue;
      }
      const specChanged = canonicalJson(old.spec) !== canonicalJson(doc.proxy.spec);
      const metaChanged =
        canonicalJson(old.metadata.annotations ?? {}) !==
          canonicalJson(doc.proxy.metadata.annotations ?? {}) ||
        canonicalJson(old.metadata.labels ?? {}) !== canonicalJson(doc.proxy.metadata.labels ?? {});
      if (!specChanged && !metaChanged) continue;
      const next = structuredClone(old);
      next.spec = structuredClone(doc.proxy.spec);
      delete next.metadata.annotations;
      delete next.metadata.labels;
      Object.assign(
        next.metadata,
        doc.proxy.metadata.annotations ? { annotations: doc.proxy.metadata.annotations } : {},
        doc.proxy.metadata.labels ? { labels: doc.proxy.metadata.labels } : {},
      );
      if (specChanged) next.metadata.generation = (old.metadata.generation ?? 1) + 1;
      this.commit(next);
    }
    for (const [key, o] of [...this.objects]) {
      if (wanted.has(key) || o.metadata.deletionTimestamp) continue;
      // A Proxy from a file that cannot be read right now keeps its last good spec.
      const src = this.#sources.get(key)?.replace(/\[\d+\]$/, '');
      if (src && [...unreadable].some((u) => src === u || src.startsWith(`${u}/`))) continue;
      this.delete(key);
    }
    this.#persistSoon();
    this.opts.onIssues?.(this.#issues);
  }

  // Copies, as from an informer's cache: what a reader changes never reaches the state file.
  list(): ProxyObject[] {
    return [...this.objects.values()].map((o) => structuredClone(o));
  }
  get(key: ProxyKey): ProxyObject | undefined {
    const o = this.objects.get(key);
    return o && structuredClone(o);
  }
  endpoint(key: ProxyKey): { host: string; port: number } | undefined {
    return this.#endpoints.get(key);
  }

  /** The Proxy may be back in the files already (deleted and re-added): pick it up. */
  protected override finalized(): void {
    void this.rescan();
  }

  recordEndpoint(key: ProxyKey, endpoint: { host: string; port: number }): void {
    const old = this.#endpoints.get(key);
    if (old && old.host === endpoint.host && old.port === endpoint.port) return;
    this.#endpoints.set(key, endpoint);
    this.#persistSoon();
    this.#notifyOnly(key);
  }

  async event(proxy: ProxyObject, type: EventType, reason: string, message: string): Promise<void> {
    this.events.push({ key: proxyKey(proxy), type, reason, message, time: new Date().toISOString() });
    if (this.events.length > 200) this.events.splice(0, this.events.length - 200);
  }

  /** Shows `text` as the progress of the step running for `key`; undefined clears it. */
  setProgress(key: ProxyKey, text: string | undefined): void {
    if (this.#progress.get(key) === text) return;
    if (text === undefined) this.#progress.delete(key);
    else if (this.objects.has(key)) this.#progress.set(key, text);
    else return;
    this.#persistSoon();
    this.#notifyOnly(key);
  }

  async writeHealth(provider: string, status: ProviderHealthStatus): Promise<void> {
    this.#health.set(provider, structuredClone(status));
    this.#persistSoon();
    this.#notifyOnly(`provider/${provider}`);
  }

  async pruneHealth(keep: readonly string[]): Promise<void> {
    for (const name of [...this.#health.keys()]) if (!keep.includes(name)) this.#health.delete(name);
    this.#persistSoon();
  }

  /** GC events go to the log in standalone mode (OrphanGc is given its own event sink). */
  async providerEvent(): Promise<void> {}

  /** The providers' latest health, by name. */
  providerHealth(): ProviderRecord[] {
    return [...this.#health.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, status]) => ({ name, status: structuredClone(status) }));
  }

  async readSecret(namespace: string, name: string, _key?: string): Promise<string> {
    throw new Error(
      `Secret ${namespace}/${name}: standalone mode has no Secrets; put the user-data in spec.cloudInit.inline`,
    );
  }

  /** The state as the state file holds it. */
  records(): ProxyRecord[] {
    return [...this.objects.entries()].map(([key, o]) => {
      const ep = this.#endpoints.get(key);
      const src = this.#sources.get(key);
      const progress = this.#progress.get(key);
      return {
        namespace: o.metadata.namespace,
        name: o.metadata.name,
        uid: o.metadata.uid ?? '',
        generation: o.metadata.generation ?? 1,
        spec: o.spec,
        finalizers: o.metadata.finalizers ?? [],
        ...(o.metadata.deletionTimestamp ? { deletionTimestamp: o.metadata.deletionTimestamp } : {}),
        ...(src ? { source: src } : {}),
        ...(o.status ? { status: o.status } : {}),
        ...(ep ? { endpoint: ep } : {}),
        ...(progress ? { progress } : {}),
      };
    });
  }

  /** Writes the state file now. */
  flush(): void {
    clearTimeout(this.#persistTimer);
    this.#persistTimer = undefined;
    try {
      writeState(this.opts.stateDir, {
        installation: this.opts.installation,
        ...(this.#stopped ? {} : { pid: process.pid }),
        ...(this.opts.extra?.() ?? {}),
        ...(this.#issues.length ? { issues: this.#issues.map(formatIssue) } : {}),
        proxies: this.records(),
        ...(this.#health.size ? { providers: this.providerHealth() } : {}),
      });
    } catch (err) {
      this.opts.onError?.(err);
    }
  }

  #persistSoon(): void {
    if (this.#persistTimer) return;
    this.#persistTimer = setTimeout(() => this.flush(), 50);
  }

  protected override changed(key: ProxyKey): void {
    this.#persistSoon();
    super.changed(key);
    this.#notifyOnly(key);
  }

  protected override remove(key: ProxyKey): void {
    this.#endpoints.delete(key);
    this.#progress.delete(key);
    this.#sources.delete(key);
    super.remove(key);
  }

  /** Listeners that only display (not the controller's queue) also want endpoint changes. */
  readonly #displayListeners = new Set<(key: ProxyKey) => void>();
  onDisplayChange(fn: (key: ProxyKey) => void): () => void {
    this.#displayListeners.add(fn);
    return () => this.#displayListeners.delete(fn);
  }
  #notifyOnly(key: ProxyKey): void {
    for (const fn of this.#displayListeners) fn(key);
  }
}
