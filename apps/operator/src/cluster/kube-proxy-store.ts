import {
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  makeInformer,
  PatchStrategy,
} from '@kubernetes/client-node';
import { GROUP, PROXY, VERSION } from '../api/group.js';
import type { ProxyObject, ProxyStatus } from '../api/proxy.js';
import type { EventType } from '../domain/events.js';
import { type ProxyKey, type ProxyStore, proxyKey, splitKey } from '../engine/store/proxy-store.js';
import { kubeCall } from './kube-call-options.js';
import { describeKubeError, isKubeNotFound } from './kube-errors.js';
import { newEvent } from './kube-event.js';

type KubeProxy = ProxyObject & KubernetesObject;

export interface KubeProxyStoreOptions {
  kubeConfig: KubeConfig;
  /** Watch one namespace only; all when absent. */
  namespace?: string;
  /** The component name on events. */
  component?: string;
  /** Delay before an informer that failed is started again; 2 s when absent. */
  restartDelayMs?: number;
  onError?: (err: unknown) => void;
}

const mergePatch = (signal?: AbortSignal) =>
  kubeCall({ contentType: PatchStrategy.MergePatch, ...(signal ? { signal } : {}) });
/** Repeats of an event within this window bump its count instead of making a new Event. */
const EVENT_AGGREGATE_MS = 10 * 60_000;
const EVENT_CACHE_SIZE = 4096;

/** Proxies from the API server: an informer for reads, the status subresource for writes. */
export class KubeProxyStore implements ProxyStore {
  readonly #custom: CustomObjectsApi;
  readonly #core: CoreV1Api;
  readonly #informer: ReturnType<typeof makeInformer<KubeProxy>>;
  readonly #listeners = new Set<(key: ProxyKey) => void>();
  #stopped = false;
  #restartTimer?: NodeJS.Timeout;
  readonly #recent = new Map<string, { name: string; count: number; at: number }>();

  constructor(private readonly opts: KubeProxyStoreOptions) {
    const kc = opts.kubeConfig;
    this.#custom = kc.makeApiClient(CustomObjectsApi);
    this.#core = kc.makeApiClient(CoreV1Api);
    const ns = opts.namespace;
    const path = ns
      ? `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PROXY.plural}`
      : `/apis/${GROUP}/${VERSION}/${PROXY.plural}`;
    const list = () =>
      (ns
        ? this.#custom.listNamespacedCustomObject({
            group: GROUP,
            version: VERSION,
            namespace: ns,
            plural: PROXY.plural,
          })
        : this.#custom.listClusterCustomObject({
            group: GROUP,
            version: VERSION,
            plural: PROXY.plural,
          })) as Promise<KubernetesListObject<KubeProxy>>;
    this.#informer = makeInformer<KubeProxy>(kc, path, list);
    const notify = (obj: KubeProxy) => {
      const key = proxyKey(obj as ProxyObject);
      for (const fn of this.#listeners) fn(key);
    };
    this.#informer.on('add', notify);
    this.#informer.on('update', notify);
    this.#informer.on('delete', notify);
    this.#informer.on('error', (err) => {
      // The informer stops on any error but a 410; it is started again after a pause.
      this.opts.onError?.(err);
      if (this.#stopped) return;
      this.#restartTimer = setTimeout(() => {
        if (!this.#stopped) this.#informer.start().catch((e) => this.opts.onError?.(e));
      }, this.opts.restartDelayMs ?? 2000);
    });
  }

  async start(): Promise<void> {
    await this.#informer.start();
  }

  describeError(err: unknown): string {
    return describeKubeError(err);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#restartTimer) clearTimeout(this.#restartTimer);
    await this.#informer.stop();
  }

  list(): ProxyObject[] {
    return this.#informer.list() as ProxyObject[];
  }

  get(key: ProxyKey): ProxyObject | undefined {
    const { namespace, name } = splitKey(key);
    return this.#informer.get(name, namespace) as ProxyObject | undefined;
  }

  onChange(fn: (key: ProxyKey) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  async updateStatus(proxy: ProxyObject, status: ProxyStatus, signal?: AbortSignal): Promise<ProxyObject> {
    const { namespace, name } = proxy.metadata;
    // A merge patch replaces lists whole and deletes keys set to null: fields the new status
    // dropped are sent as null so they do not linger.
    const body: Record<string, unknown> = { ...status };
    for (const k of Object.keys(proxy.status ?? {})) if (!(k in status)) body[k] = null;
    return (await this.#custom.patchNamespacedCustomObjectStatus(
      { group: GROUP, version: VERSION, namespace, plural: PROXY.plural, name, body: { status: body } },
      mergePatch(signal),
    )) as ProxyObject;
  }

  async addFinalizer(proxy: ProxyObject, finalizer: string, signal?: AbortSignal): Promise<ProxyObject> {
    const finalizers = proxy.metadata.finalizers ?? [];
    if (finalizers.includes(finalizer)) return proxy;
    return this.#patchFinalizers(proxy, [...finalizers, finalizer], signal);
  }

  async removeFinalizer(proxy: ProxyObject, finalizer: string, signal?: AbortSignal): Promise<void> {
    const finalizers = proxy.metadata.finalizers ?? [];
    if (!finalizers.includes(finalizer)) return;
    try {
      await this.#patchFinalizers(
        proxy,
        finalizers.filter((f) => f !== finalizer),
        signal,
      );
    } catch (err) {
      if (!isKubeNotFound(err)) throw err;
    }
  }

  /** The whole list with the resourceVersion, so a concurrent change makes this a 409, not a lost write. */
  #patchFinalizers(proxy: ProxyObject, finalizers: string[], signal?: AbortSignal): Promise<ProxyObject> {
    const { namespace, name, resourceVersion } = proxy.metadata;
    return this.#custom.patchNamespacedCustomObject(
      {
        group: GROUP,
        version: VERSION,
        namespace,
        plural: PROXY.plural,
        name,
        body: { metadata: { finalizers, ...(resourceVersion ? { resourceVersion } : {}) } },
      },
      mergePatch(signal),
    ) as Promise<ProxyObject>;
  }

  async event(proxy: ProxyObject, type: EventType, reason: string, message: string): Promise<void> {
    const { namespace, name, uid, resourceVersion } = proxy.metadata;
    const now = new Date();
    const key = `${namespace}/${name}/${uid}\u0000${type}\u0000${reason}\u0000${message}`;
    const seen = this.#recent.get(key);
    if (seen && now.getTime() - seen.at < EVENT_AGGREGATE_MS) {
      // The same event again (a delete retried with backoff): count it on the existing Event.
      try {
        seen.count += 1;
        seen.at = now.getTime();
        await this.#core.patchNamespacedEvent(
          { name: seen.name, namespace, body: { count: seen.count, lastTimestamp: now } },
          mergePatch(),
        );
        return;
      } catch {
        this.#recent.delete(key);
      }
    }
    try {
      const created = await this.#core.createNamespacedEvent(
        {
          namespace,
          body: newEvent(
            namespace,
            { kind: PROXY.kind, name, namespace, uid, resourceVersion },
            { type, reason, message },
            now,
            this.opts.component,
          ),
        },
        kubeCall(),
      );
      if (created.metadata?.name) {
        if (this.#recent.size >= EVENT_CACHE_SIZE)
          this.#recent.delete(this.#recent.keys().next().value as string);
        this.#recent.set(key, { name: created.metadata.name, count: 1, at: now.getTime() });
      }
    } catch (err) {
      this.opts.onError?.(
        new Error(`recording event ${reason} on ${namespace}/${name}: ${describeKubeError(err)}`),
      );
    }
  }

  async readSecret(namespace: string, name: string, key: string, signal?: AbortSignal): Promise<string> {
    let secret: Awaited<ReturnType<CoreV1Api['readNamespacedSecret']>>;
    try {
      secret = await this.#core.readNamespacedSecret({ name, namespace }, kubeCall(signal ? { signal } : {}));
    } catch (err) {
      if (isKubeNotFound(err)) throw new Error(`Secret ${namespace}/${name} not found`);
      throw new Error(`reading Secret ${namespace}/${name}: ${describeKubeError(err)}`);
    }
    const value = secret.data?.[key];
    if (value === undefined) {
      throw new Error(
        `Secret ${namespace}/${name} has no key ${JSON.stringify(key)} (keys: ${Object.keys(secret.data ?? {}).join(', ') || 'none'})`,
      );
    }
    return Buffer.from(value, 'base64').toString('utf8');
  }
}
