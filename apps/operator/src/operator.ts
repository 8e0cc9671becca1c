import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import {
  type Logger,
  loadProvidersConfig,
  type ProviderEntry,
  type ProviderRegistry,
  ProvidersConfigError,
} from '@egress-proxies/contract';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { ConfigWatcher } from './config/config-watcher.js';
import type { OpLogger } from './controller/op-logger.js';
import { silentOpLogger } from './controller/op-logger.js';
import { Periodic } from './controller/periodic.js';
import { instrumentedCall } from './controller/provider-call.js';
import { ProxyController } from './controller/proxy-controller.js';
import { OrphanGc } from './gc/orphan-gc.js';
import { HealthChecker } from './health/health-checker.js';
import { HealthLoop } from './health/health-loop.js';
import { LeaseElector } from './leader/lease-elector.js';
import { countByPhase, OperatorMetrics } from './metrics/metrics.js';
import { createHttpProbe, type HttpProbeOptions } from './probe/http-probe.js';
import { bundledRegistry } from './providers/bundled.js';
import { type ProviderDiff, ProviderSet } from './providers/provider-set.js';
import type { RateLimiterOptions } from './queue/rate-limiter.js';
import type { ProbeFn } from './reconcile/types.js';
import { startHttpServer } from './server/http-server.js';
import { KubeHealthStore } from './store/kube-health-store.js';
import { KubeProxyStore } from './store/kube-proxy-store.js';

export interface OperatorOptions {
  kubeConfig: KubeConfig;
  /** The providers config file; validated at start, reloaded when it changes. */
  configPath: string;
  /** Provider factories by config type. */
  registry?: ProviderRegistry;
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
  workers?: number;
  gcIntervalMs?: number;
  gcGraceMs?: number;
  healthIntervalMs?: number;
  configPollMs?: number;
  probe?: HttpProbeOptions;
  /** Replaces the HTTP probe (tests). */
  probeFn?: ProbeFn;
  defaultProbeTarget?: string;
  pollIntervalMs?: number;
  failedProbeRetryMs?: number;
  resyncMs?: number;
  rateLimiter?: RateLimiterOptions;
  /** Where /metrics, /healthz and /readyz listen; no server when absent. */
  http?: { host: string; port: number };
  logger?: OpLogger;
  /** What providers log through. */
  providerLogger?: Logger;
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
  collectGarbage(): Promise<import('./gc/orphan-gc.js').GcReport[]>;
  stop(): Promise<void>;
}

/** Refuses entries whose type this build has no factory for, naming each entry's path. */
export function checkRegistered(
  registry: ProviderRegistry,
  entries: ProviderEntry[],
  source: string,
): ProviderEntry[] {
  const issues = entries.flatMap((e, i) =>
    registry.has(e.type)
      ? []
      : [
          {
            path: `providers[${i}].type`,
            message: `type ${JSON.stringify(e.type)} of provider ${JSON.stringify(e.name)} is not bundled in this build (bundled: ${registry.types().join(', ') || 'none'})`,
          },
        ],
  );
  if (issues.length > 0) throw new ProvidersConfigError(issues, { source });
  return entries;
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
  const registry = opts.registry ?? bundledRegistry();
  const text = await readFile(opts.configPath, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new Error(`cannot read providers config ${opts.configPath}: ${err.code ?? err.message}`);
  });
  const entries = checkRegistered(
    registry,
    loadProvidersConfig(text, { source: opts.configPath }),
    opts.configPath,
  );
  const providers = ProviderSet.fromRegistry(registry, opts.providerLogger);
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
  let controller: ProxyController | undefined;
  const metrics = new OperatorMetrics({
    proxiesByPhase: () => countByPhase(store.list()),
    queueDepth: () => controller?.queue.length ?? 0,
  });
  let synced = false;
  const http = opts.http
    ? await startHttpServer({
        ...opts.http,
        registry: metrics.registry,
        healthy: () => true,
        ready: () => synced,
      })
    : undefined;

  await store.start();
  synced = true;

  const call = instrumentedCall({ metrics, ...(opts.providerLogger ? { logger: opts.providerLogger } : {}) });
  const health = new HealthChecker({ store: healthStore, metrics, logger: log.child({ loop: 'health' }) });
  const gc = new OrphanGc({
    liveProxies: () => store.list(),
    installation,
    graceMs: opts.gcGraceMs ?? 10 * 60_000,
    call,
    metrics,
    event: (p, type, reason, message) => healthStore.providerEvent(p, type, reason, message),
    logger: log.child({ loop: 'gc' }),
  });
  const collectGarbage = async () => {
    const reports = [];
    for (const slot of providers.slots()) reports.push(await gc.collect(slot));
    return reports;
  };
  let gcLoop: Periodic | undefined;
  let healthLoop: HealthLoop | undefined;

  const startLeading = () => {
    metrics.leader.set(1);
    controller = new ProxyController({
      store,
      providers,
      installation,
      probe: opts.probeFn ?? createHttpProbe(opts.probe),
      metrics,
      logger: log.child({ loop: 'proxy' }),
      ...(opts.providerLogger ? { providerLogger: opts.providerLogger } : {}),
      ...(opts.workers ? { workers: opts.workers } : {}),
      ...(opts.rateLimiter ? { rateLimiter: opts.rateLimiter } : {}),
      ...(opts.defaultProbeTarget ? { defaultProbeTarget: opts.defaultProbeTarget } : {}),
      ...(opts.pollIntervalMs !== undefined ? { pollIntervalMs: opts.pollIntervalMs } : {}),
      ...(opts.failedProbeRetryMs !== undefined ? { failedProbeRetryMs: opts.failedProbeRetryMs } : {}),
      ...(opts.resyncMs !== undefined ? { resyncMs: opts.resyncMs } : {}),
    });
    controller.start();
    gcLoop = new Periodic(
      () => collectGarbage().then(() => {}),
      opts.gcIntervalMs ?? 5 * 60_000,
      (err) => log.warn({ error: String(err) }, 'orphan GC failed'),
    );
    healthLoop = new HealthLoop({
      providers,
      checker: health,
      store: healthStore,
      intervalMs: opts.healthIntervalMs ?? 60_000,
      logger: log.child({ loop: 'health' }),
    });
    gcLoop.start();
    void healthLoop.start();
  };
  const stopLeading = async () => {
    metrics.leader.set(0);
    const c = controller;
    controller = undefined;
    await Promise.all([c?.stop(), gcLoop?.stop(), healthLoop?.stop()]);
  };

  providers.onChange((diff: ProviderDiff) => {
    const touched = [...diff.added, ...diff.changed, ...diff.removed];
    log.info({ ...diff }, 'providers changed');
    controller?.enqueueProviders(touched);
  });
  const watcher = new ConfigWatcher({
    path: opts.configPath,
    ...(opts.configPollMs ? { pollMs: opts.configPollMs } : {}),
    onConfig: async (next) => {
      await providers.apply(checkRegistered(registry, next, opts.configPath));
      metrics.configReloads.inc({ result: 'applied' });
      log.info({ providers: providers.names() }, 'providers config reloaded');
    },
    onError: (err) => {
      metrics.configReloads.inc({ result: 'rejected' });
      log.error(
        { error: err instanceof Error ? err.message : String(err) },
        'providers config rejected; keeping the previous one',
      );
    },
  });
  watcher.setInitial(text);
  watcher.start();

  let elector: LeaseElector | undefined;
  if (opts.leaderElection === false) startLeading();
  else {
    elector = new LeaseElector({
      kubeConfig: opts.kubeConfig,
      namespace: opts.operatorNamespace,
      name: opts.leaseName ?? 'egress-proxies-operator',
      identity,
      ...(opts.leaseDurationMs ? { leaseDurationMs: opts.leaseDurationMs } : {}),
      ...(opts.renewDeadlineMs ? { renewDeadlineMs: opts.renewDeadlineMs } : {}),
      ...(opts.retryPeriodMs ? { retryPeriodMs: opts.retryPeriodMs } : {}),
      onStartedLeading: startLeading,
      onStoppedLeading: () => {
        void stopLeading();
        opts.onLostLeadership?.();
      },
      logger: log.child({ loop: 'leader' }),
    });
    elector.start();
  }

  return {
    providers,
    metrics,
    installation,
    identity,
    ...(http ? { httpPort: http.port } : {}),
    isLeader: () => controller !== undefined,
    controller: () => controller,
    reloadConfig: () => watcher.check(),
    collectGarbage,
    async stop() {
      watcher.stop();
      if (elector) await elector.stop();
      await stopLeading();
      await store.stop();
      await providers.close();
      await http?.close();
    },
  };
}
