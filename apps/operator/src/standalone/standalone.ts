import type { Logger, ProviderRegistry } from '@egress-proxies/contract';
import { ConfigWatcher } from '../config/config-watcher.js';
import { type OpLogger, silentOpLogger } from '../controller/op-logger.js';
import { Periodic } from '../controller/periodic.js';
import { instrumentedCall } from '../controller/provider-call.js';
import { ProxyController } from '../controller/proxy-controller.js';
import { type GcReport, OrphanGc } from '../gc/orphan-gc.js';
import { HealthChecker } from '../health/health-checker.js';
import { HealthLoop } from '../health/health-loop.js';
import { countByPhase, OperatorMetrics } from '../metrics/metrics.js';
import { createHttpProbe, type HttpProbeOptions } from '../probe/http-probe.js';
import { bundledRegistry } from '../providers/bundled.js';
import { ProviderSet } from '../providers/provider-set.js';
import type { RateLimiterOptions } from '../queue/rate-limiter.js';
import type { ProbeFn } from '../reconcile/types.js';
import { startHttpServer } from '../server/http-server.js';
import { FileProxyStore } from './file-proxy-store.js';
import { withProgress } from './progress.js';
import { loadStandaloneProviders, resolveEntries } from './providers-file.js';
import type { DocumentIssue } from './proxy-documents.js';
import { ensureInstallation } from './state-file.js';

export interface StandaloneOptions {
  /** Proxy files or directories. */
  proxyPaths: readonly string[];
  /** The providers config file (the same format as in the cluster). */
  providersPath: string;
  /** Where the state file (installation id, status) lives. */
  stateDir: string;
  registry?: ProviderRegistry;
  workers?: number;
  gcIntervalMs?: number;
  gcGraceMs?: number;
  /** The period of the providers' health checks; 60 s when absent (as in the cluster). */
  healthIntervalMs?: number;
  probe?: HttpProbeOptions;
  /** Replaces the HTTP probe (tests). */
  probeFn?: ProbeFn;
  /** The probe target of Proxies without `spec.probe` (the demo's echo server). */
  defaultProbeTarget?: string;
  pollIntervalMs?: number;
  failedProbeRetryMs?: number;
  rateLimiter?: RateLimiterOptions;
  debounceMs?: number;
  rescanMs?: number;
  configPollMs?: number;
  /** Where /metrics, /healthz and /readyz listen; no server when absent. */
  http?: { host: string; port: number };
  logger?: OpLogger;
  providerLogger?: Logger;
  onIssues?: (issues: DocumentIssue[]) => void;
  /** Extra fields for the state file (the demo target, for `status`). */
  extra?: () => { demoTarget?: string };
}

export interface RunningStandalone {
  readonly store: FileProxyStore;
  readonly providers: ProviderSet;
  readonly controller: ProxyController;
  readonly metrics: OperatorMetrics;
  readonly installation: string;
  readonly httpPort?: number;
  /** Resolves when every provider's Checker has run once (its results are in `store.providerHealth()`). */
  readonly healthChecked: Promise<void>;
  collectGarbage(): Promise<GcReport[]>;
  /** Stops reconciling and watching; the proxies keep running. */
  stop(): Promise<void>;
}

/**
 * The operator without a cluster: Proxies from files, status in a state file, the same
 * reconciler, queue, probes, GC and metrics as in the cluster.
 */
export async function startStandalone(opts: StandaloneOptions): Promise<RunningStandalone> {
  const log = opts.logger ?? silentOpLogger;
  const registry = opts.registry ?? bundledRegistry();
  const entries = await loadStandaloneProviders(opts.providersPath, registry);
  const providers = ProviderSet.fromRegistry(registry, opts.providerLogger);
  await providers.apply(entries);
  const installation = ensureInstallation(opts.stateDir);
  log.info({ providers: providers.names(), installation }, 'standalone: providers loaded');

  const store = new FileProxyStore({
    paths: opts.proxyPaths,
    stateDir: opts.stateDir,
    installation,
    ...(opts.debounceMs !== undefined ? { debounceMs: opts.debounceMs } : {}),
    ...(opts.rescanMs !== undefined ? { rescanMs: opts.rescanMs } : {}),
    ...(opts.onIssues ? { onIssues: opts.onIssues } : {}),
    ...(opts.extra ? { extra: opts.extra } : {}),
    onError: (err) => log.warn({ error: String(err) }, 'proxy files error'),
  });
  let controller: ProxyController | undefined;
  const metrics = new OperatorMetrics({
    proxiesByPhase: () => countByPhase(store.list()),
    queueDepth: () => controller?.queue.length ?? 0,
  });
  metrics.leader.set(1);
  let ready = false;
  const http = opts.http
    ? await startHttpServer({
        ...opts.http,
        registry: metrics.registry,
        healthy: () => true,
        ready: () => ready,
      })
    : undefined;
  await store.start();
  ready = true;

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
    wrapCall: (key, call) => withProgress(call, (text) => store.setProgress(key, text)),
  });
  controller.start();

  const healthLoop = new HealthLoop({
    providers,
    checker: new HealthChecker({ store, metrics, logger: log.child({ loop: 'health' }) }),
    store,
    intervalMs: opts.healthIntervalMs ?? 60_000,
    logger: log.child({ loop: 'health' }),
  });
  const healthChecked = healthLoop.start();

  const call = instrumentedCall({ metrics, ...(opts.providerLogger ? { logger: opts.providerLogger } : {}) });
  const gc = new OrphanGc({
    liveProxies: () => store.list(),
    installation,
    graceMs: opts.gcGraceMs ?? 10 * 60_000,
    call,
    metrics,
    event: async (provider, type, reason, message) => log.info({ provider, type, reason, message }, 'gc'),
    logger: log.child({ loop: 'gc' }),
  });
  const collectGarbage = async () => {
    const reports: GcReport[] = [];
    for (const slot of providers.slots()) reports.push(await gc.collect(slot));
    return reports;
  };
  const gcLoop = new Periodic(
    () => collectGarbage().then(() => {}),
    opts.gcIntervalMs ?? 5 * 60_000,
    (err) => log.warn({ error: String(err) }, 'orphan GC failed'),
  );
  gcLoop.start();

  providers.onChange((diff) => {
    log.info({ ...diff }, 'providers changed');
    controller?.enqueueProviders([...diff.added, ...diff.changed, ...diff.removed]);
  });
  const watcher = new ConfigWatcher({
    path: opts.providersPath,
    ...(opts.configPollMs ? { pollMs: opts.configPollMs } : {}),
    onConfig: async (next) => {
      await providers.apply(resolveEntries(next, opts.providersPath));
      metrics.configReloads.inc({ result: 'applied' });
    },
    onError: (err) => {
      metrics.configReloads.inc({ result: 'rejected' });
      log.error(
        { error: err instanceof Error ? err.message : String(err) },
        'providers config rejected; keeping the previous one',
      );
    },
  });
  // The watcher compares digests of the file's text, so it starts from the current file.
  const { readFile } = await import('node:fs/promises');
  watcher.setInitial(await readFile(opts.providersPath, 'utf8'));
  watcher.start();

  const running: RunningStandalone = {
    store,
    providers,
    controller,
    metrics,
    installation,
    ...(http ? { httpPort: http.port } : {}),
    healthChecked,
    collectGarbage,
    async stop() {
      watcher.stop();
      await Promise.all([controller?.stop(), gcLoop.stop(), healthLoop.stop()]);
      await store.stop();
      await providers.close();
      await http?.close();
    },
  };
  return running;
}
