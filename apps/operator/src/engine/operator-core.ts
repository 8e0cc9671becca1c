import type { Logger } from '@egress-proxies/contract';
import type { ProviderEntry } from '@egress-proxies/provider-utils';
import { type OpLogger, silentOpLogger } from '../domain/op-logger.js';
import { createHttpProbe, type HttpProbeOptions } from '../probe/http-probe.js';
import type { ProviderSet } from '../providers/provider-set.js';
import { startHttpServer } from '../telemetry/http-server.js';
import { countByPhase, OperatorMetrics } from '../telemetry/metrics.js';
import { watchProvidersConfig } from './config-reloads.js';
import { type CallDeadlines, deadlineCall } from './controller/call-deadline.js';
import { Periodic } from './controller/periodic.js';
import { instrumentedCall } from './controller/provider-call.js';
import { ProxyController, type ProxyControllerOptions } from './controller/proxy-controller.js';
import { type GcReport, OrphanGc, type OrphanGcOptions } from './gc/orphan-gc.js';
import { HealthChecker } from './health/health-checker.js';
import { HealthLoop } from './health/health-loop.js';
import type { RateLimiterOptions } from './queue/rate-limiter.js';
import type { ProbeFn } from './reconcile/types.js';
import type { HealthStore, ProxyStore } from './store/proxy-store.js';

/** The knobs the cluster and standalone entry points both pass through unchanged. */
export interface CoreTuning {
  workers?: number;
  /** Creates of one provider entry running at once; 8 when absent. */
  createConcurrency?: number;
  gcIntervalMs?: number;
  gcGraceMs?: number;
  /** The period of the providers' health checks; 60 s when absent. */
  healthIntervalMs?: number;
  probe?: HttpProbeOptions;
  /** Replaces the HTTP probe (tests). */
  probeFn?: ProbeFn;
  /** The probe target of Proxies without `spec.probe`. */
  defaultProbeTarget?: string;
  pollIntervalMs?: number;
  failedProbeRetryMs?: number;
  rateLimiter?: RateLimiterOptions;
  /** The budget of one reconcile's own calls (creates run outside it); 10 min when absent. */
  reconcileTimeoutMs?: number;
  /** How soon a latched Permanent failure is tried once more; 30 min when absent. */
  latchRetryMs?: number;
  /** `--create-timeout`: the deadline of a create (a provider entry's `createTimeout` overrides it); 30 min when absent. */
  createTimeoutMs?: number;
  /** `--call-timeout`: the deadline of every other provider call; 2 min when absent. */
  callTimeoutMs?: number;
  /** How long a create may still finish once its Proxy changed or is being deleted; 10 s when absent. */
  abortGraceMs?: number;
  configPollMs?: number;
  /** Where /metrics, /healthz and /readyz listen; no server when absent. */
  http?: { host: string; port: number };
  logger?: OpLogger;
  /** What providers log through. */
  providerLogger?: Logger;
}

export interface OperatorCoreOptions extends CoreTuning {
  store: ProxyStore;
  /** Where ProviderHealth status (and, by default, GC events) go. */
  healthStore: HealthStore;
  /** Already holding the config the process started with. */
  providers: ProviderSet;
  installation: string;
  configPath: string;
  /** The text the providers were loaded from, so the watcher does not apply it a second time. */
  configText: string;
  /** What a reloaded config goes through before the providers get it (checks, path resolution). */
  prepareReload: (entries: ProviderEntry[]) => ProviderEntry[] | Promise<ProviderEntry[]>;
  /** Loads and checks a reloaded config's text (the provider loader's `loadConfig`). */
  loadConfig: (text: string) => Promise<ProviderEntry[]> | ProviderEntry[];
  /** Where an event about each GC deletion goes; the health store's provider events when absent. */
  gcEvent?: OrphanGcOptions['event'];
  /** Controller options only one entry point sets. */
  controller?: Pick<ProxyControllerOptions, 'resyncMs' | 'wrapCall'>;
}

export interface Leading {
  readonly controller: ProxyController;
  /** Resolves when every provider's Checker has run once. */
  readonly healthChecked: Promise<void>;
}

/**
 * The parts of the operator that do not depend on where Proxies live or who may reconcile them:
 * metrics, the HTTP endpoints, the Proxy controller, orphan GC, provider health and config
 * reloads. Each entry point builds its stores, decides when it leads, and calls in here.
 */
export interface OperatorCore {
  readonly metrics: OperatorMetrics;
  /** The controller while leading. */
  controller(): ProxyController | undefined;
  /** Runs one GC pass over every provider now; the reports. */
  collectGarbage(): Promise<GcReport[]>;
  /** Re-reads the config file now (the watcher also does on its own). */
  reloadConfig(): Promise<void>;
  /**
   * Serves the HTTP endpoints (not ready yet), fills the store's cache, then reports ready and
   * watches the config file; the HTTP port when a server was asked for.
   */
  start(): Promise<{ httpPort?: number }>;
  /** Starts the controller and the health and GC loops. */
  startLeading(): Leading;
  /**
   * Stops the controller and the loops; work in flight gets `graceMs` (10 s) to finish before it
   * is aborted. A process that lost its lease passes 0: another may be leading already.
   */
  stopLeading(graceMs?: number): Promise<void>;
  /**
   * Stops everything, in an order that lets in-flight work finish while no other replica can
   * lead yet: config watching, the controller and the loops (the lease is still renewed
   * meanwhile), then `release` (leadership), the store, the providers, the server.
   */
  stop(release?: () => Promise<void>): Promise<void>;
}

export function createOperatorCore(opts: OperatorCoreOptions): OperatorCore {
  const log = opts.logger ?? silentOpLogger;
  const { store, healthStore, providers, installation } = opts;
  let controller: ProxyController | undefined;
  const metrics = new OperatorMetrics({
    proxiesByPhase: () => countByPhase(store.list()),
    queueDepth: () => controller?.queue.length ?? 0,
  });
  const deadlines: CallDeadlines = {
    ...(opts.createTimeoutMs !== undefined ? { createMs: opts.createTimeoutMs } : {}),
    ...(opts.callTimeoutMs !== undefined ? { callMs: opts.callTimeoutMs } : {}),
  };
  const call = deadlineCall(
    instrumentedCall({ metrics, ...(opts.providerLogger ? { logger: opts.providerLogger } : {}) }),
    deadlines,
  );
  const health = new HealthChecker({
    store: healthStore,
    metrics,
    logger: log.child({ loop: 'health' }),
    // A check answers readiness: its own 30 s budget, or the call deadline when that is shorter.
    ...(opts.callTimeoutMs !== undefined ? { timeoutMs: Math.min(30_000, opts.callTimeoutMs) } : {}),
  });
  const gc = new OrphanGc({
    liveProxies: () => store.list(),
    installation,
    graceMs: opts.gcGraceMs ?? 10 * 60_000,
    call,
    metrics,
    event:
      opts.gcEvent ?? ((p, type, reason, message) => healthStore.providerEvent(p, type, reason, message)),
    logger: log.child({ loop: 'gc' }),
  });
  const collectGarbage = async () => {
    const reports: GcReport[] = [];
    for (const slot of providers.slots()) reports.push(await gc.collect(slot));
    return reports;
  };
  const watcher = watchProvidersConfig({
    path: opts.configPath,
    text: opts.configText,
    providers,
    prepare: opts.prepareReload,
    metrics,
    log,
    ...(opts.configPollMs ? { pollMs: opts.configPollMs } : {}),
    load: opts.loadConfig,
  });
  providers.onChange((diff) => {
    log.info({ ...diff }, 'providers changed');
    controller?.enqueueProviders([...diff.added, ...diff.changed, ...diff.removed]);
  });

  let http: { port: number; close(): Promise<void> } | undefined;
  let gcLoop: Periodic | undefined;
  let healthLoop: HealthLoop | undefined;

  const stopLeading = async (graceMs?: number) => {
    metrics.leader.set(0);
    const c = controller;
    controller = undefined;
    await Promise.all([c?.stop(graceMs), gcLoop?.stop(), healthLoop?.stop()]);
  };

  return {
    metrics,
    controller: () => controller,
    collectGarbage,
    reloadConfig: () => watcher.check(),

    async start() {
      let synced = false;
      http = opts.http
        ? await startHttpServer({
            ...opts.http,
            registry: metrics.registry,
            healthy: () => true,
            ready: () => synced,
          })
        : undefined;
      await store.start();
      synced = true;
      watcher.start();
      return http ? { httpPort: http.port } : {};
    },

    startLeading() {
      metrics.leader.set(1);
      const c = new ProxyController({
        store,
        providers,
        installation,
        probe: opts.probeFn ?? createHttpProbe(opts.probe),
        metrics,
        logger: log.child({ loop: 'proxy' }),
        ...(opts.providerLogger ? { providerLogger: opts.providerLogger } : {}),
        ...(opts.workers ? { workers: opts.workers } : {}),
        ...(opts.createConcurrency ? { createConcurrency: opts.createConcurrency } : {}),
        ...(opts.rateLimiter ? { rateLimiter: opts.rateLimiter } : {}),
        ...(opts.defaultProbeTarget ? { defaultProbeTarget: opts.defaultProbeTarget } : {}),
        ...(opts.pollIntervalMs !== undefined ? { pollIntervalMs: opts.pollIntervalMs } : {}),
        ...(opts.failedProbeRetryMs !== undefined ? { failedProbeRetryMs: opts.failedProbeRetryMs } : {}),
        ...(opts.reconcileTimeoutMs !== undefined ? { reconcileTimeoutMs: opts.reconcileTimeoutMs } : {}),
        ...(opts.latchRetryMs !== undefined ? { latchRetryMs: opts.latchRetryMs } : {}),
        deadlines,
        ...(opts.abortGraceMs !== undefined ? { abortGraceMs: opts.abortGraceMs } : {}),
        ...(opts.controller?.resyncMs !== undefined ? { resyncMs: opts.controller.resyncMs } : {}),
        ...(opts.controller?.wrapCall ? { wrapCall: opts.controller.wrapCall } : {}),
      });
      controller = c;
      c.start();
      healthLoop = new HealthLoop({
        providers,
        checker: health,
        store: healthStore,
        intervalMs: opts.healthIntervalMs ?? 60_000,
        logger: log.child({ loop: 'health' }),
      });
      gcLoop = new Periodic(
        () => collectGarbage().then(() => {}),
        opts.gcIntervalMs ?? 5 * 60_000,
        (err) => log.warn({ error: String(err) }, 'orphan GC failed'),
      );
      // The first health round starts before the first GC pass: a provider that cannot work is
      // named as early as possible.
      const healthChecked = healthLoop.start();
      gcLoop.start();
      return { controller: c, healthChecked };
    },

    stopLeading,

    async stop(release) {
      watcher.stop();
      await stopLeading();
      await release?.();
      await store.stop();
      await providers.close();
      await http?.close();
    },
  };
}
