import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { PROXY_PHASES } from '../api/proxy.js';

/** Proxies counted by status phase (`Unknown` before the first status), for the phase gauge. */
export function countByPhase(proxies: Iterable<{ status?: { phase?: string } }>): Map<string, number> {
  const m = new Map<string, number>();
  for (const p of proxies) {
    const phase = p.status?.phase ?? 'Unknown';
    m.set(phase, (m.get(phase) ?? 0) + 1);
  }
  return m;
}

/**
 * controller-runtime's `result` for one of our reconcile outcomes: the reconcile ended (success),
 * it will run again after a backoff (requeue_after), or it threw (error).
 */
export function reconcileResult(outcome: string): 'success' | 'requeue_after' | 'error' {
  if (outcome === 'error') return 'error';
  if (outcome === 'transient' || outcome === 'quota' || outcome === 'blocked') return 'requeue_after';
  return 'success';
}

/**
 * Every metric the operator exports, on its own registry (never prom-client's global one). Where
 * controller-runtime has the same concept its name and labels are used, so dashboards and alerts
 * written for Go operators work; prom-client's default process and Node.js metrics come too.
 */
export class OperatorMetrics {
  readonly registry = new Registry();
  readonly reconcileDuration: Histogram<'controller' | 'outcome'>;
  readonly reconciles: Counter<'controller' | 'result' | 'outcome'>;
  readonly reconcileErrors: Counter<'controller'>;
  readonly queueAdds: Counter<'name'>;
  readonly queueRetries: Counter<'name'>;
  readonly providerLatency: Histogram<'provider' | 'operation'>;
  readonly providerErrors: Counter<'provider' | 'operation' | 'class'>;
  readonly proxies: Gauge<'phase'>;
  readonly gcDeletions: Counter<'provider' | 'kind'>;
  readonly gcRuns: Counter<'provider' | 'result'>;
  readonly probeLatency: Histogram<'result'>;
  readonly configReloads: Counter<'result'>;
  readonly queueDepth: Gauge<'name'>;
  readonly leaderStatus: Gauge<'name'>;
  /** 1 while this process holds the Lease (`leader_election_master_status{name=<lease>}`). */
  readonly leader: { set(value: number): void };
  readonly providerReady: Gauge<'provider'>;

  constructor(
    opts: {
      proxiesByPhase?: () => Map<string, number>;
      queueDepth?: () => number;
      /** The Lease name, the `name` of the leader gauge. */
      leaseName?: string;
      /** prom-client's process_* and nodejs_* metrics (default on). */
      defaultMetrics?: boolean;
    } = {},
  ) {
    const registers = [this.registry];
    if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.reconcileDuration = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller (and, beyond controller-runtime, per outcome).',
      labelNames: ['controller', 'outcome'],
      buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    });
    this.reconciles = new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller, by result (success, requeue_after, error) and outcome (ok, transient, quota, permanent, latched, deleted, invalid, blocked, error).',
      labelNames: ['controller', 'result', 'outcome'],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller.',
      labelNames: ['controller'],
      registers,
    });
    this.queueAdds = new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue.',
      labelNames: ['name'],
      registers,
    });
    this.queueRetries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue.',
      labelNames: ['name'],
      registers,
    });
    this.providerLatency = new Histogram({
      name: 'egress_proxies_provider_operation_duration_seconds',
      help: 'Provider call latency, by provider and operation.',
      labelNames: ['provider', 'operation'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers,
    });
    this.providerErrors = new Counter({
      name: 'egress_proxies_provider_operation_errors_total',
      help: 'Failed provider calls, by provider, operation and error class.',
      labelNames: ['provider', 'operation', 'class'],
      registers,
    });
    const byPhase = opts.proxiesByPhase;
    this.proxies = new Gauge({
      name: 'egress_proxies_proxies',
      help: 'Proxies by phase, as cached.',
      labelNames: ['phase'],
      registers,
      collect() {
        if (!byPhase) return;
        const counts = byPhase();
        for (const phase of [...PROXY_PHASES, 'Unknown']) this.set({ phase }, counts.get(phase) ?? 0);
      },
    });
    this.gcDeletions = new Counter({
      name: 'egress_proxies_gc_deletions_total',
      help: 'Orphans deleted by garbage collection, by provider and kind (instance, or the secondary kind).',
      labelNames: ['provider', 'kind'],
      registers,
    });
    this.gcRuns = new Counter({
      name: 'egress_proxies_gc_runs_total',
      help: 'Garbage collection passes, by provider and result.',
      labelNames: ['provider', 'result'],
      registers,
    });
    this.probeLatency = new Histogram({
      name: 'egress_proxies_probe_duration_seconds',
      help: 'Health probe latency through the proxy, by result.',
      labelNames: ['result'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.configReloads = new Counter({
      name: 'egress_proxies_config_reloads_total',
      help: 'Providers config reloads, by result (applied, rejected).',
      labelNames: ['result'],
      registers,
    });
    const depth = opts.queueDepth;
    this.queueDepth = new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue.',
      labelNames: ['name'],
      registers,
      collect() {
        if (depth) this.set({ name: 'proxy' }, depth());
      },
    });
    this.leaderStatus = new Gauge({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
      labelNames: ['name'],
      registers,
    });
    const lease = opts.leaseName ?? 'egress-proxies-operator';
    this.leaderStatus.set({ name: lease }, 0);
    this.leader = { set: (value) => this.leaderStatus.set({ name: lease }, value) };
    this.providerReady = new Gauge({
      name: 'egress_proxies_provider_ready',
      help: "1 when every target of the provider's Checker is ready.",
      labelNames: ['provider'],
      registers,
    });
  }

  /** One reconcile of `controller` ended with `outcome` after `seconds`. */
  reconciled(controller: string, outcome: string, seconds: number): void {
    const result = reconcileResult(outcome);
    this.reconciles.inc({ controller, result, outcome });
    if (result === 'error') this.reconcileErrors.inc({ controller });
    this.reconcileDuration.observe({ controller, outcome }, seconds);
  }

  /** The work queue hooks that count adds and retries of queue `name`. */
  queueHooks(name: string): { onAdd: () => void; onRetry: () => void } {
    return { onAdd: () => this.queueAdds.inc({ name }), onRetry: () => this.queueRetries.inc({ name }) };
  }
}
