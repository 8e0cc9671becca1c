import { Counter, Gauge, Histogram, Registry } from 'prom-client';
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

/** Every metric the operator exports, on its own registry (never prom-client's global one). */
export class OperatorMetrics {
  readonly registry = new Registry();
  readonly reconcileDuration: Histogram<'outcome'>;
  readonly reconciles: Counter<'outcome'>;
  readonly providerLatency: Histogram<'provider' | 'operation'>;
  readonly providerErrors: Counter<'provider' | 'operation' | 'class'>;
  readonly proxies: Gauge<'phase'>;
  readonly gcDeletions: Counter<'provider' | 'kind'>;
  readonly gcRuns: Counter<'provider' | 'result'>;
  readonly probeLatency: Histogram<'result'>;
  readonly configReloads: Counter<'result'>;
  readonly queueDepth: Gauge;
  readonly leader: Gauge;
  readonly providerReady: Gauge<'provider'>;

  constructor(opts: { proxiesByPhase?: () => Map<string, number>; queueDepth?: () => number } = {}) {
    const registers = [this.registry];
    this.reconcileDuration = new Histogram({
      name: 'egress_proxies_reconcile_duration_seconds',
      help: 'Time one Proxy reconcile took, by outcome.',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    });
    this.reconciles = new Counter({
      name: 'egress_proxies_reconcile_total',
      help: 'Proxy reconciles, by outcome (ok, transient, quota, permanent, latched, deleted, invalid, blocked, error).',
      labelNames: ['outcome'],
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
      name: 'egress_proxies_workqueue_depth',
      help: 'Keys waiting in the work queue.',
      registers,
      collect() {
        if (depth) this.set(depth());
      },
    });
    this.leader = new Gauge({
      name: 'egress_proxies_leader',
      help: '1 while this process holds the leader lease.',
      registers,
    });
    this.providerReady = new Gauge({
      name: 'egress_proxies_provider_ready',
      help: "1 when every target of the provider's Checker is ready.",
      labelNames: ['provider'],
      registers,
    });
  }
}
