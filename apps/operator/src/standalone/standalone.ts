import { readFile } from 'node:fs/promises';
import type { ProviderRegistry } from '@egress-proxies/provider-utils';
import { silentOpLogger } from '../domain/op-logger.js';
import type { ProxyController } from '../engine/controller/proxy-controller.js';
import type { GcReport } from '../engine/gc/orphan-gc.js';
import { type CoreTuning, createOperatorCore } from '../engine/operator-core.js';
import type { ProxyUsers } from '../gateway/basic-auth.js';
import { GatewayMetrics } from '../gateway/gateway-metrics.js';
import { providerLoader } from '../providers/load-providers.js';
import type { ProviderModuleError } from '../providers/provider-module-error.js';
import type { ProviderSet } from '../providers/provider-set.js';
import type { OperatorMetrics } from '../telemetry/metrics.js';
import { FileProxyStore } from './file-proxy-store.js';
import { withProgress } from './progress.js';
import { loadStandaloneProviders, prepareStandaloneEntries } from './providers-file.js';
import type { DocumentIssue } from './proxy-documents.js';
import { type PoolView, StandalonePools } from './standalone-pools.js';
import { ensureInstallation, type PoolRecord } from './state-file.js';

/** What the state file keeps of a pool's view (the planning details stay in memory). */
const poolRecord = (v: PoolView): PoolRecord => ({
  key: v.key,
  desired: v.desired,
  replicas: v.replicas,
  ready: v.ready,
  members: v.members,
  ...(v.gateway ? { gateway: v.gateway } : {}),
  ...(v.draining?.length ? { draining: v.draining } : {}),
  ...(v.autoscale ? { autoscale: v.autoscale } : {}),
});

/** The standalone entry point's options; the shared tuning knobs come from CoreTuning. */
export interface StandaloneOptions extends CoreTuning {
  /** Proxy files or directories. */
  proxyPaths: readonly string[];
  /** The providers config file (the same format as in the cluster). */
  providersPath: string;
  /** Where the state file (installation id, status) lives. */
  stateDir: string;
  registry?: ProviderRegistry;
  /** Where `module:` entries resolve first; `$EGRESS_PROXIES_MODULES_DIR`, then the operator's install. */
  modulesDir?: string;
  debounceMs?: number;
  rescanMs?: number;
  onIssues?: (issues: DocumentIssue[]) => void;
  /** Where the pools' gateways listen (default loopback). */
  gatewayHost?: string;
  /** The pools' gateways' proxy users (required off loopback). */
  gatewayUsers?: ProxyUsers;
  /** A SOCKS5 listener for the pools' gateways (a busy port: a free one instead, logged). */
  gatewaySocks?: { host: string; port: number };
  /** How often the pools are re-planned (default 1 s). */
  poolIntervalMs?: number;
  /** How long a pool member chosen to go keeps its open tunnels before it is deleted anyway (default 2 min). */
  poolDrainTimeoutMs?: number;
  /** Extra fields for the state file (the demo target, for `status`). */
  extra?: () => { demoTarget?: string };
}

export interface RunningStandalone {
  readonly store: FileProxyStore;
  /** ProxyPools from the files: their members and in-process gateways. */
  readonly pools: StandalonePools;
  readonly providers: ProviderSet;
  readonly controller: ProxyController;
  readonly metrics: OperatorMetrics;
  readonly installation: string;
  readonly httpPort?: number;
  /** Resolves when every provider's Checker has run once (its results are in `store.providerHealth()`). */
  readonly healthChecked: Promise<void>;
  collectGarbage(): Promise<GcReport[]>;
  /** Re-reads the providers file now (the watcher also does on its own). */
  reloadConfig(): Promise<void>;
  /** Stops reconciling and watching; the proxies keep running. */
  stop(): Promise<void>;
}

/**
 * The operator without a cluster: Proxies from files, status in a state file, the same
 * reconciler, queue, probes, GC and metrics as in the cluster.
 */
export async function startStandalone(opts: StandaloneOptions): Promise<RunningStandalone> {
  const log = opts.logger ?? silentOpLogger;
  const loader = providerLoader(opts.providersPath, opts);
  const providers = loader.providerSet(opts.providerLogger);
  // Entries whose module cannot be used are kept on the set: their ProviderHealth (and so the
  // terminal and `status`) names the entry, the module and the cause.
  const collecting = () => {
    const failures: ProviderModuleError[] = [];
    const onModuleError = (err: ProviderModuleError) => {
      failures.push(err);
      log.error(
        { provider: err.entry.name, module: err.module, error: err.message },
        'provider module failed',
      );
    };
    return { failures, onModuleError };
  };
  const first = collecting();
  const entries = await loadStandaloneProviders(opts.providersPath, loader, { log, ...first });
  providers.setFailures(first.failures);
  await providers.apply(entries);
  const installation = ensureInstallation(opts.stateDir);
  log.info({ providers: providers.names(), installation }, 'standalone: providers loaded');

  const pools = new StandalonePools({
    stateDir: opts.stateDir,
    logger: log,
    ...(opts.poolIntervalMs !== undefined ? { intervalMs: opts.poolIntervalMs } : {}),
    ...(opts.gatewayHost !== undefined ? { gatewayHost: opts.gatewayHost } : {}),
    ...(opts.gatewayUsers ? { gatewayUsers: opts.gatewayUsers } : {}),
    ...(opts.gatewaySocks ? { gatewaySocks: opts.gatewaySocks } : {}),
    ...(opts.poolDrainTimeoutMs !== undefined ? { drainTimeoutMs: opts.poolDrainTimeoutMs } : {}),
  });
  const store = new FileProxyStore({
    pools,
    paths: opts.proxyPaths,
    stateDir: opts.stateDir,
    installation,
    ...(opts.debounceMs !== undefined ? { debounceMs: opts.debounceMs } : {}),
    ...(opts.rescanMs !== undefined ? { rescanMs: opts.rescanMs } : {}),
    ...(opts.onIssues ? { onIssues: opts.onIssues } : {}),
    // `status` reads the pools from the state file: their counts, members and gateway.
    extra: () => {
      const views = pools.views();
      return { ...opts.extra?.(), ...(views.length ? { pools: views.map(poolRecord) } : {}) };
    },
    onError: (err) => log.warn({ error: String(err) }, 'proxy files error'),
  });
  const core = createOperatorCore({
    ...opts,
    store,
    // The file store keeps provider health too, for `status` and the state file.
    healthStore: store,
    providers,
    installation,
    configPath: opts.providersPath,
    configText: await readFile(opts.providersPath, 'utf8'),
    // A reload naming a type this build lacks is refused, as in the cluster; the old config stays.
    prepareReload: async (next) => {
      const reload = collecting();
      const prepared = await prepareStandaloneEntries(next, opts.providersPath, loader, { log, ...reload });
      providers.setFailures(reload.failures);
      return prepared;
    },
    loadConfig: (text) => loader.loadConfig(text),
    // There is no object to hang an event on: GC deletions go to the log.
    gcEvent: async (provider, type, reason, message) => log.info({ provider, type, reason, message }, 'gc'),
    controller: { wrapCall: (key, call) => withProgress(call, (text) => store.setProgress(key, text)) },
  });
  // Nothing else could lead here: the leader gauge says so from the first scrape on.
  core.metrics.leader.set(1);
  const { httpPort } = await core.start();
  const { controller, healthChecked } = core.startLeading();
  pools.attach(store, new GatewayMetrics(core.metrics.registry));
  pools.start();

  return {
    store,
    pools,
    providers,
    controller,
    metrics: core.metrics,
    installation,
    ...(httpPort !== undefined ? { httpPort } : {}),
    healthChecked,
    collectGarbage: () => core.collectGarbage(),
    reloadConfig: () => core.reloadConfig(),
    stop: async () => {
      await pools.stop();
      await core.stop();
    },
  };
}
