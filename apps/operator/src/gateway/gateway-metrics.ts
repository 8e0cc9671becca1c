import { Counter, Gauge, Registry } from 'prom-client';

/** The gateway's metrics, per pool and member, on their own registry. */
export class GatewayMetrics {
  readonly registry: Registry;
  readonly connections: Counter<'pool' | 'member' | 'kind'>;
  readonly active: Gauge<'pool' | 'member'>;
  readonly bytes: Counter<'pool' | 'member' | 'direction'>;
  readonly failures: Counter<'pool' | 'member' | 'reason'>;
  readonly cooldowns: Counter<'pool' | 'member' | 'reason'>;
  readonly cooledDown: Gauge<'pool' | 'member'>;
  readonly rejected: Counter<'pool' | 'reason'>;

  constructor(registry = new Registry()) {
    this.registry = registry;
    const registers = [registry];
    this.connections = new Counter({
      name: 'egress_proxies_gateway_connections_total',
      help: 'Client connections routed through a member, by kind (http, connect).',
      labelNames: ['pool', 'member', 'kind'],
      registers,
    });
    this.active = new Gauge({
      name: 'egress_proxies_gateway_active_connections',
      help: 'Connections open through a member now.',
      labelNames: ['pool', 'member'],
      registers,
    });
    this.bytes = new Counter({
      name: 'egress_proxies_gateway_bytes_total',
      help: 'Bytes relayed through a member, by direction (up: client to member, down: member to client).',
      labelNames: ['pool', 'member', 'direction'],
      registers,
    });
    this.failures = new Counter({
      name: 'egress_proxies_gateway_failures_total',
      help: 'Connections through a member that failed, by reason (connect, status, reset).',
      labelNames: ['pool', 'member', 'reason'],
      registers,
    });
    this.cooldowns = new Counter({
      name: 'egress_proxies_gateway_cooldowns_total',
      help: 'Times a member was cooled down, by reason (connect-failed, status-403, status-429, ...).',
      labelNames: ['pool', 'member', 'reason'],
      registers,
    });
    this.cooledDown = new Gauge({
      name: 'egress_proxies_gateway_member_cooled_down',
      help: '1 while a member is cooled down (gets no new connections).',
      labelNames: ['pool', 'member'],
      registers,
    });
    this.rejected = new Counter({
      name: 'egress_proxies_gateway_rejected_total',
      help: 'Client requests refused by the gateway itself, by reason (auth, no-member, bad-request, draining).',
      labelNames: ['pool', 'reason'],
      registers,
    });
  }
}
