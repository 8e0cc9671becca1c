import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { ProviderEntry, ProviderRegistry } from '@egress-proxies/provider-utils';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { silentOpLogger } from '../domain/op-logger.js';
import type { ProxyController } from '../engine/controller/proxy-controller.js';
import type { GcReport } from '../engine/gc/orphan-gc.js';
import { type CoreTuning, createOperatorCore } from '../engine/operator-core.js';
import { providerLoader, reportModuleFailures } from '../providers/load-providers.js';
import type { ProviderSet } from '../providers/provider-set.js';
import type { OperatorMetrics } from '../telemetry/metrics.js';
import { KubeHealthStore } from './kube-health-store.js';
import { KubeProxyStore } from './kube-proxy-store.js';
import { LeaseElector } from './lease-elector.js';

/** The in-cluster entry point's options; the shared tuning knobs come from CoreTuning. */
export interface OperatorOptions extends CoreTuning {
  kubeConfig: KubeConfig;
  /** The providers config file; validated at start, reloaded when it changes. */
  configPath: string;
  /** Provider factories by config type; the bundled packages (imported on use) when absent. */
  registry?: ProviderRegistry;
  /** Where `module:` entries resolve first; `$EGRESS_PROXIES_MODULES_DIR`, then the operator's install. */
  modulesDir?: string;
  /** This installation's id; the `kube-system` namespace UID when absent. */
  installation?: string;
  /** Watch Proxies in one namespace only; all when absent. */
  watchNamespace?: string;
  /** Where the Lease and provider events live. */
  operatorNamespace: string;
  leaderElection?: boolean;
  leaseName?: string;
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  resyncMs?: number;
  /** Called when leadership is lost (main exits so a fresh process campaigns again). */
  onLostLeadership?: () => void;
}

export interface RunningOperator {
  readonly providers: ProviderSet;
  readonly metrics: OperatorMetrics;
  readonly installation: string;
  readonly identity: string;
  /** The HTTP server's port, when one was asked for. */
  readonly httpPort?: number;
  isLeader(): boolean;
  /** The controller while leading. */
  controller(): ProxyController | undefined;
  /** Re-reads the config file now (the watcher also does on its own). */
  reloadConfig(): Promise<void>;
  /** Runs one GC pass over every provider now (leader only); the reports. */
  collectGarbage(): Promise<GcReport[]>;
  stop(): Promise<void>;
}

/** Reads the `kube-system` namespace UID: an id every cluster has and no other cluster shares. */
export async function clusterInstallationId(kc: KubeConfig): Promise<string> {
  const ns = await kc.makeApiClient(CoreV1Api).readNamespace({ name: 'kube-system' });
  const uid = ns.metadata?.uid;
  if (!uid) throw new Error('the kube-system namespace has no uid; pass --installation-id');
  return uid;
}

/**
 * Starts the operator: loads the providers config (throwing a ProvidersConfigError naming the
 * file and every bad path), starts the informer, campaigns for the Lease, and while leading runs
 * the Proxy controller, orphan GC and the provider health checks.
 */
export async function startOperator(opts: OperatorOptions): Promise<RunningOperator> {
  const log = opts.logger ?? silentOpLogger;
  if (opts.watchNamespace && !opts.installation) {
    // GC sees only the watched namespace's Proxies; sharing the cluster-wide id with operators
    // watching other namespaces would let each collect the others' instances.
    throw new Error(
      `watching one namespace (${opts.watchNamespace}) needs its own installation id: pass --installation-id`,
    );
  }
  const loader = providerLoader(opts.configPath, opts);
  const text = await readFile(opts.configPath, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new Error(`cannot read providers config ${opts.configPath}: ${err.code ?? err.message}`);
  });
  const providers = loader.providerSet(opts.providerLogger);
  const prepare = async (next: ProviderEntry[]) => {
    const prepared = await loader.prepare(next);
    // Their ProviderHealth says why they failed (the entry, the module and the cause).
    providers.setFailures(prepared.failures);
    return reportModuleFailures(prepared, (err) =>
      log.error(
        { provider: err.entry.name, module: err.module, error: err.message },
        'provider module failed',
      ),
    );
  };
  const loadConfig = (t: string) => loader.loadConfig(t);
  const entries = await prepare(await loadConfig(text));
  await providers.apply(entries);
  log.info({ providers: providers.names(), config: opts.configPath }, 'providers config loaded');

  const installation = opts.installation ?? (await clusterInstallationId(opts.kubeConfig));
  const identity = opts.identity ?? `${hostname()}-${randomBytes(4).toString('hex')}`;
  const store = new KubeProxyStore({
    kubeConfig: opts.kubeConfig,
    ...(opts.watchNamespace ? { namespace: opts.watchNamespace } : {}),
    onError: (err) => log.warn({ error: String(err) }, 'proxy store error'),
  });
  const healthStore = new KubeHealthStore({
    kubeConfig: opts.kubeConfig,
    // Events about a cluster-scoped object must live in the default namespace.
    eventNamespace: 'default',
    onError: (err) => log.warn({ error: String(err) }, 'health store error'),
  });
  const core = createOperatorCore({
    ...opts,
    store,
    healthStore,
    providers,
    installation,
    configText: text,
    prepareReload: prepare,
    loadConfig,
    ...(opts.resyncMs !== undefined ? { controller: { resyncMs: opts.resyncMs } } : {}),
  });
  const { httpPort } = await core.start();

  let elector: LeaseElector | undefined;
  if (opts.leaderElection === false) core.startLeading();
  else {
    elector = new LeaseElector({
      kubeConfig: opts.kubeConfig,
      namespace: opts.operatorNamespace,
      name: opts.leaseName ?? 'egress-proxies-operator',
      identity,
      ...(opts.leaseDurationMs ? { leaseDurationMs: opts.leaseDurationMs } : {}),
      ...(opts.renewDeadlineMs ? { renewDeadlineMs: opts.renewDeadlineMs } : {}),
      ...(opts.retryPeriodMs ? { retryPeriodMs: opts.retryPeriodMs } : {}),
      onStartedLeading: () => void core.startLeading(),
      onStoppedLeading: () => {
        // Another replica may lead as soon as the lease expires: stop at once, not gracefully.
        void core.stopLeading(0);
        opts.onLostLeadership?.();
      },
      logger: log.child({ loop: 'leader' }),
    });
    elector.start();
  }

  return {
    providers,
    metrics: core.metrics,
    installation,
    identity,
    ...(httpPort !== undefined ? { httpPort } : {}),
    isLeader: () => core.controller() !== undefined,
    controller: () => core.controller(),
    reloadConfig: () => core.reloadConfig(),
    collectGarbage: () => core.collectGarbage(),
    stop: () => core.stop(async () => elector?.stop()),
  };
}
