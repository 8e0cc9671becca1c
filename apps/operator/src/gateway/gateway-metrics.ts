import { Counter, Gauge, Registry } from 'prom-client';
import type { GatewayStats, MemberStats } from './gateway-stats.js';

type MemberLabels = { pool: string; member: string };

/**
 * The gateway's metrics, per pool and member, on their own registry (or the operator's). Each
 * running gateway registers its GatewayStats; the values are read from them at scrape time.
 */
export class GatewayMetrics {
  readonly registry: Registry;
  readonly connections: Counter<'pool' | 'member' | 'kind'>;
  readonly active: Gauge<'pool' | 'member'>;
  readonly bytes: Counter<'pool' | 'member' | 'direction'>;
  readonly failures: Counter<'pool' | 'member' | 'reason'>;
  readonly cooldowns: Counter<'pool' | 'member' | 'reason'>;
  readonly cooledDown: Gauge<'pool' | 'member'>;
  readonly rejected: Counter<'pool' | 'reason'>;
  readonly #sources = new Set<GatewayStats>();

  constructor(registry = new Registry()) {
    this.registry = registry;
    const registers = [registry];
    const sources = this.#sources;
    // Every metric is rebuilt from the sources on collect: reset, then the current totals.
    const perMember = (
      metric: Counter<string> | Gauge<string>,
      each: (labels: MemberLabels, s: MemberStats) => void,
    ) => {
      metric.reset();
      for (const src of sources) for (const [member, s] of src.members) each({ pool: src.pool, member }, s);
    };
    this.connections = new Counter({
      name: 'egress_proxies_gateway_connections_total',
      help: 'Client connections routed through a member, by kind (http, connect).',
      labelNames: ['pool', 'member', 'kind'],
      registers,
      collect() {
        perMember(this, (l, s) => {
          if (s.http) this.inc({ ...l, kind: 'http' }, s.http);
          if (s.connect) this.inc({ ...l, kind: 'connect' }, s.connect);
        });
      },
    });
    this.active = new Gauge({
      name: 'egress_proxies_gateway_active_connections',
      help: 'Connections open through a member now.',
      labelNames: ['pool', 'member'],
      registers,
      collect() {
        perMember(this, (l, s) => this.set(l, s.active));
      },
    });
    this.bytes = new Counter({
      name: 'egress_proxies_gateway_bytes_total',
      help: 'Bytes relayed through a member, by direction (up: client to member, down: member to client).',
      labelNames: ['pool', 'member', 'direction'],
      registers,
      collect() {
        perMember(this, (l, s) => {
          if (s.bytesUp) this.inc({ ...l, direction: 'up' }, s.bytesUp);
          if (s.bytesDown) this.inc({ ...l, direction: 'down' }, s.bytesDown);
        });
      },
    });
    this.failures = new Counter({
      name: 'egress_proxies_gateway_failures_total',
      help: "Connections through a member that did not simply succeed, by outcome: the member's own failures (connect-failed, member-closed, member-reset, member-garbage, status-<ban>) cool it down; client-abort, target-unreachable, target-refused, target-timeout, tunnel-reset and answer-cut do not.",
      labelNames: ['pool', 'member', 'reason'],
      registers,
      collect() {
        perMember(this, (l, s) => {
          for (const [reason, n] of s.failures) this.inc({ ...l, reason }, n);
        });
      },
    });
    this.cooldowns = new Counter({
      name: 'egress_proxies_gateway_cooldowns_total',
      help: 'Times this gateway cooled a member down, by reason (connect-failed, status-403, status-429, ...).',
      labelNames: ['pool', 'member', 'reason'],
      registers,
      collect() {
        perMember(this, (l, s) => {
          for (const [reason, n] of s.cooldowns) this.inc({ ...l, reason }, n);
        });
      },
    });
    this.cooledDown = new Gauge({
      name: 'egress_proxies_gateway_member_cooled_down',
      help: '1 while a member is cooled down (by this gateway, or marked by another replica): it gets no new connections.',
      labelNames: ['pool', 'member'],
      registers,
      collect() {
        perMember(this, (l, s) => this.set(l, s.cooledDown));
      },
    });
    this.rejected = new Counter({
      name: 'egress_proxies_gateway_rejected_total',
      help: 'Client requests refused by the gateway itself, by reason (auth, no-member, bad-request, draining).',
      labelNames: ['pool', 'reason'],
      registers,
      collect() {
        this.reset();
        for (const src of sources)
          for (const [reason, n] of src.rejected) this.inc({ pool: src.pool, reason }, n);
      },
    });
  }

  /** Adds a running gateway's counters to what this registry reports. */
  register(stats: GatewayStats): void {
    this.#sources.add(stats);
  }

  unregister(stats: GatewayStats): void {
    this.#sources.delete(stats);
  }
}
