import { CoreV1Api, CustomObjectsApi, type KubeConfig, PatchStrategy } from '@kubernetes/client-node';
import { GROUP, PROVIDER_HEALTH, VERSION } from '../api/group.js';
import type { ProviderHealthStatus } from '../api/provider-health.js';
import type { EventType } from '../domain/events.js';
import type { HealthStore } from '../engine/store/proxy-store.js';
import { kubeCall } from './kube-call-options.js';
import { describeKubeError, isKubeConflict, isKubeNotFound } from './kube-errors.js';
import { newEvent } from './kube-event.js';

export interface KubeHealthStoreOptions {
  kubeConfig: KubeConfig;
  /** Where events about providers go (the operator's namespace). */
  eventNamespace: string;
  component?: string;
  onError?: (err: unknown) => void;
}

const base = { group: GROUP, version: VERSION, plural: PROVIDER_HEALTH.plural };
const LABEL = 'app.kubernetes.io/managed-by';
const LABEL_VALUE = 'egress-proxies-operator';

/** ProviderHealth objects (cluster-scoped), one per configured provider. */
export class KubeHealthStore implements HealthStore {
  readonly #custom: CustomObjectsApi;
  readonly #core: CoreV1Api;
  readonly #uids = new Map<string, string>();

  constructor(private readonly opts: KubeHealthStoreOptions) {
    this.#custom = opts.kubeConfig.makeApiClient(CustomObjectsApi);
    this.#core = opts.kubeConfig.makeApiClient(CoreV1Api);
  }

  async writeHealth(provider: string, status: ProviderHealthStatus, signal?: AbortSignal): Promise<void> {
    const opts = () => kubeCall(signal ? { signal } : {});
    const patch = () =>
      this.#custom.patchClusterCustomObjectStatus(
        { ...base, name: provider, body: { status } },
        kubeCall({ contentType: PatchStrategy.MergePatch, ...(signal ? { signal } : {}) }),
      );
    try {
      const o = (await patch()) as { metadata?: { uid?: string } };
      if (o.metadata?.uid) this.#uids.set(provider, o.metadata.uid);
      return;
    } catch (err) {
      if (!isKubeNotFound(err)) throw err;
    }
    try {
      const o = (await this.#custom.createClusterCustomObject(
        {
          ...base,
          body: {
            apiVersion: `${GROUP}/${VERSION}`,
            kind: PROVIDER_HEALTH.kind,
            metadata: { name: provider, labels: { [LABEL]: LABEL_VALUE } },
          },
        },
        opts(),
      )) as { metadata?: { uid?: string } };
      if (o.metadata?.uid) this.#uids.set(provider, o.metadata.uid);
    } catch (err) {
      if (!isKubeConflict(err)) throw err;
    }
    await patch();
  }

  async pruneHealth(keep: readonly string[], signal?: AbortSignal): Promise<void> {
    const opts = () => kubeCall(signal ? { signal } : {});
    const list = (await this.#custom.listClusterCustomObject(
      { ...base, labelSelector: `${LABEL}=${LABEL_VALUE}` },
      opts(),
    )) as { items?: { metadata?: { name?: string } }[] };
    for (const item of list.items ?? []) {
      const name = item.metadata?.name;
      if (!name || keep.includes(name)) continue;
      try {
        await this.#custom.deleteClusterCustomObject({ ...base, name }, opts());
      } catch (err) {
        if (!isKubeNotFound(err)) throw err;
      }
    }
  }

  async providerEvent(provider: string, type: EventType, reason: string, message: string): Promise<void> {
    const now = new Date();
    const uid = this.#uids.get(provider);
    try {
      await this.#core.createNamespacedEvent(
        {
          namespace: this.opts.eventNamespace,
          body: newEvent(
            this.opts.eventNamespace,
            { kind: PROVIDER_HEALTH.kind, name: provider, uid },
            { type, reason, message },
            now,
            this.opts.component,
          ),
        },
        kubeCall(),
      );
    } catch (err) {
      this.opts.onError?.(
        new Error(`recording event ${reason} for provider ${provider}: ${describeKubeError(err)}`),
      );
    }
  }
}
