import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createReference,
  REFERENCE_HOSTS,
  ReferenceBackend,
  referenceConfig,
} from '@egress-proxies/conformance/reference';
import { localConfigSchema } from '@egress-proxies/provider-local';
import { ProviderRegistry } from '@egress-proxies/provider-utils';
import type { KubeControlPlane } from '@egress-proxies/testenv-kube';
import { KubeConfig } from '@kubernetes/client-node';
import type { ProxyObject } from '../../src/api/proxy.js';
import { type OperatorOptions, type RunningOperator, startOperator } from '../../src/cluster/operator.js';
import { createHttpProbe } from '../../src/probe/http-probe.js';

export const TOKEN = 'ref-token-integration-secret';

/**
 * The reference provider registered under the `local` config type, with the local provider's
 * config schema (so `local:` blocks are checked as the bundled type's are). One in-memory backend
 * per provider name, kept across config reloads, so instances survive a rebuild.
 */
export class ReferenceBackends {
  readonly backends = new Map<string, ReferenceBackend>();
  backend(name: string): ReferenceBackend {
    let b = this.backends.get(name);
    if (!b) {
      b = new ReferenceBackend({ hosts: REFERENCE_HOSTS.map((h) => ({ name: h, token: TOKEN })) });
      this.backends.set(name, b);
    }
    return b;
  }
  registry(): ProviderRegistry {
    return new ProviderRegistry().register({
      type: 'local',
      configSchema: localConfigSchema,
      create: (_config: unknown, ctx: { name: string }) =>
        createReference(ctx.name, referenceConfig(TOKEN), this.backend(ctx.name)),
    });
  }
}

/** A providers config file with `local` entries named `names`. */
export function writeProvidersConfig(path: string, names: string[]): void {
  const text = names
    .map((n) => `- name: ${n}\n  type: local\n  local:\n    stateDir: /var/lib/${n}\n`)
    .join('');
  writeFileSync(path, text.length ? text : '[]\n');
}

export interface OperatorHarness {
  op: RunningOperator;
  kc: KubeConfig;
  configPath: string;
  dir: string;
  stop(): Promise<void>;
}

export async function startTestOperator(
  cp: KubeControlPlane,
  backends: ReferenceBackends,
  probeVia: { proxyPort: number },
  extra: Partial<OperatorOptions> & { providers?: string[]; configText?: string } = {},
): Promise<OperatorHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'ep-op-'));
  const configPath = join(dir, 'providers.yaml');
  if (extra.configText !== undefined) writeFileSync(configPath, extra.configText);
  else writeProvidersConfig(configPath, extra.providers ?? ['ref']);
  const kc = new KubeConfig();
  kc.loadFromString(cp.kubeconfig());
  const { providers: _p, configText: _c, ...rest } = extra;
  let op: RunningOperator;
  try {
    op = await startOperator({
      kubeConfig: kc,
      configPath,
      registry: backends.registry(),
      installation: 'install-A',
      operatorNamespace: 'egress-proxies-system',
      leaderElection: false,
      workers: 2,
      gcIntervalMs: 3_600_000,
      healthIntervalMs: 3_600_000,
      configPollMs: 200,
      pollIntervalMs: 200,
      failedProbeRetryMs: 300,
      // Every address a provider reports maps to the local forward proxy: no traffic leaves loopback.
      probeFn: createHttpProbe({
        resolve: () => ({ host: '127.0.0.1', port: probeVia.proxyPort }),
        retryDelayMs: 50,
      }),
      rateLimiter: {
        jitter: 0,
        tiers: { transient: { baseMs: 100, maxMs: 1000 }, quota: { baseMs: 400, maxMs: 2000 } },
      },
      ...rest,
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    op,
    kc,
    configPath,
    dir,
    async stop() {
      await op.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const proxiesPath = (ns: string, name = '') =>
  `/apis/egress-proxies.dev/v1alpha1/namespaces/${ns}/proxies${name ? `/${name}` : ''}`;

export async function getProxy(
  cp: KubeControlPlane,
  ns: string,
  name: string,
): Promise<ProxyObject | undefined> {
  const r = await cp.request('GET', proxiesPath(ns, name));
  if (r.status === 404) return undefined;
  if (r.status !== 200) throw new Error(`GET proxy ${ns}/${name}: ${r.status} ${r.body}`);
  return r.json<ProxyObject>();
}

export async function createProxy(
  cp: KubeControlPlane,
  ns: string,
  name: string,
  spec: Record<string, unknown>,
) {
  const r = await cp.request('POST', proxiesPath(ns), {
    apiVersion: 'egress-proxies.dev/v1alpha1',
    kind: 'Proxy',
    metadata: { name, namespace: ns },
    spec,
  });
  if (r.status !== 201) throw new Error(`create proxy ${ns}/${name}: ${r.status} ${r.body}`);
  return r.json<ProxyObject>();
}

export async function patchProxySpec(
  cp: KubeControlPlane,
  ns: string,
  name: string,
  spec: Record<string, unknown>,
) {
  const r = await cp.request(
    'PATCH',
    proxiesPath(ns, name),
    { spec },
    { contentType: 'application/merge-patch+json' },
  );
  if (r.status !== 200) throw new Error(`patch proxy ${ns}/${name}: ${r.status} ${r.body}`);
  return r.json<ProxyObject>();
}

export async function listEvents(cp: KubeControlPlane, ns: string, name?: string) {
  const r = await cp.request('GET', `/api/v1/namespaces/${ns}/events`);
  const items = r.json<{
    items: {
      reason: string;
      message: string;
      type: string;
      count?: number;
      involvedObject: { name: string };
    }[];
  }>().items;
  return name ? items.filter((e) => e.involvedObject.name === name) : items;
}
