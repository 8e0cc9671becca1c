// Test-only helpers (not exported from the package): a Proxy in memory driven by reconcileProxy
// against the conformance reference provider, the way a store would apply the results.
import {
  createReference,
  REFERENCE_HOSTS,
  ReferenceBackend,
  referenceConfig,
} from '@egress-proxies/conformance/reference';
import { FINALIZER } from '../../src/api/group.js';
import type { ProxyObject, ProxySpecInput } from '../../src/api/proxy.js';
import { reconcileProxy } from '../../src/engine/reconcile/reconcile-proxy.js';
import type {
  ProbeFn,
  ProbeRequest,
  ProviderHandle,
  ProxyEvent,
  ReconcileContext,
  ReconcileResult,
} from '../../src/engine/reconcile/types.js';

export const TOKEN = 'ref-token-secret-123';

export function referenceHandle(name = 'ref', fingerprint = 'fp-1', backend?: ReferenceBackend) {
  const b =
    backend ?? new ReferenceBackend({ hosts: REFERENCE_HOSTS.map((h) => ({ name: h, token: TOKEN })) });
  const { provider } = createReference(name, referenceConfig(TOKEN), b);
  const handle: ProviderHandle = { name, type: provider.type, provider, fingerprint };
  return { handle, backend: b, provider };
}

export const placement = { zone: 'alpha', machineType: 'small', image: 'debian-12' };

export function newProxy(spec: Partial<ProxySpecInput> = {}, name = 'p1'): ProxyObject {
  return {
    apiVersion: 'egress-proxies.dev/v1alpha1',
    kind: 'Proxy',
    metadata: { name, namespace: 'ns1', uid: `uid-${name}`, generation: 1, finalizers: [] },
    spec: { mode: 'Managed', provider: 'ref', placement, port: 3128, ...spec },
  };
}

export class Driver {
  events: ProxyEvent[] = [];
  probes: ProbeRequest[] = [];
  probeOk = true;
  nowMs = Date.parse('2026-01-01T00:00:00Z');
  readonly handles = new Map<string, ProviderHandle>();
  last?: ReconcileResult;
  secrets = new Map<string, string>();
  /** Provider names whose module failed to load, with the loader's message. */
  loadFailures = new Map<string, string>();

  constructor(
    public proxy: ProxyObject,
    handles: ProviderHandle[],
  ) {
    for (const h of handles) this.handles.set(h.name, h);
  }

  probe: ProbeFn = async (req) => {
    this.probes.push(req);
    return this.probeOk
      ? { ok: true, egressIP: '203.0.113.9', latencyMs: 5 }
      : { ok: false, error: 'connection refused', latencyMs: 1 };
  };

  context(): ReconcileContext {
    return {
      now: () => new Date(this.nowMs),
      provider: (n) => this.handles.get(n),
      providerNames: () => [...this.handles.keys()],
      providerLoadFailure: (n) => this.loadFailures.get(n),
      installation: 'install-A',
      probe: this.probe,
      readCloudInitSecret: async (_p, name, key) => {
        const v = this.secrets.get(`${name}/${key}`);
        if (v === undefined) throw new Error(`secret ${name} has no key ${key}`);
        return v;
      },
      pollIntervalMs: 1000,
    };
  }

  /** One pass, applied the way a store applies it. */
  async step(): Promise<ReconcileResult> {
    const r = await reconcileProxy(structuredClone(this.proxy), this.context());
    this.last = r;
    this.events.push(...r.events);
    const md = this.proxy.metadata;
    if (r.finalizer === 'add') md.finalizers = [...(md.finalizers ?? []), FINALIZER];
    if (r.finalizer === 'remove') md.finalizers = (md.finalizers ?? []).filter((f) => f !== FINALIZER);
    if (r.status) this.proxy.status = structuredClone(r.status);
    return r;
  }

  /** Passes until the phase is `phase` (or `max` passes). */
  async until(phase: string, max = 10): Promise<void> {
    for (let i = 0; i < max; i++) {
      if (this.proxy.status?.phase === phase && i > 0) return;
      await this.step();
      if (this.proxy.status?.phase === phase) return;
    }
    throw new Error(
      `phase ${this.proxy.status?.phase} after ${max} passes, wanted ${phase}: ${this.proxy.status?.message}`,
    );
  }

  changeSpec(patch: Partial<ProxySpecInput>): void {
    this.proxy.spec = { ...this.proxy.spec, ...patch };
    this.proxy.metadata.generation = (this.proxy.metadata.generation ?? 1) + 1;
  }

  reasons(): string[] {
    return this.events.map((e) => e.reason);
  }
}

type ProviderOf = ProviderHandle['provider'];

/**
 * The handle with some provider methods replaced; each override gets the original method, so a
 * test changes one behaviour (a delete that returns early, a get that fails) and keeps the rest.
 */
export function withOverrides(
  handle: ProviderHandle,
  overrides: {
    [K in 'create' | 'get' | 'delete']?: (
      inner: ProviderOf[K],
      ...args: Parameters<ProviderOf[K]>
    ) => ReturnType<ProviderOf[K]>;
  },
): ProviderHandle {
  const inner = handle.provider;
  const provider = new Proxy(inner, {
    get(target, key) {
      const v = Reflect.get(target, key, target);
      const bound = typeof v === 'function' ? v.bind(target) : v;
      const o = overrides[key as keyof typeof overrides] as ((...a: unknown[]) => unknown) | undefined;
      return o ? (...args: unknown[]) => o(bound, ...args) : bound;
    },
  });
  return { ...handle, provider };
}
