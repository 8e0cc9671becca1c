import type { ProxyObject } from '../api/proxy.js';
import { memberTotals } from '../gateway/gateway-stats.js';
import { EventRing, newestEvents } from '../status-page/event-ring.js';
import type {
  StatusPageData,
  StatusPageErrorClass,
  StatusPageEvent,
  StatusPageMember,
  StatusPageProvider,
} from '../status-page/page-data.js';
import { TrafficRates } from '../status-page/traffic-rates.js';
import type { FileProxyStore, StoredEvent } from './file-proxy-store.js';
import type { PoolView, StandalonePools } from './standalone-pools.js';

/** What the page reads under `up`: the pools with their gateways, and the store's Proxies, health and events. */
export type StatusPagePools = Pick<StandalonePools, 'views' | 'gateway' | 'onMemberChange' | 'onScale'>;
export type StatusPageStore = Pick<FileProxyStore, 'get' | 'events' | 'providerHealth' | 'onDisplayChange'>;

export interface StandaloneStatusPageOptions {
  /** How many recent events the page shows (default 50). */
  events?: number;
  now?: () => number;
}

/** The reconciler's event reasons that are a provider's failure, by the class it was sorted into. */
const FAILURE_CLASS: Record<string, StatusPageErrorClass> = {
  Failed: 'Permanent',
  QuotaExceeded: 'QuotaExceeded',
  InstanceGone: 'NotFound',
};

/**
 * The status page's data under `up`: each pool's view with its members' zones, ages and gateway
 * counters, the providers' health, and the recent events (the reconciler's, kept by the store,
 * merged with the pools' own: cooldowns, recoveries, scaling, transient provider errors).
 */
export class StandaloneStatusPage {
  readonly #pools: StatusPagePools;
  readonly #store: StatusPageStore;
  readonly #now: () => number;
  readonly #ring: EventRing;
  readonly #rates = new TrafficRates();
  /** The last transient error recorded per Proxy, so a retry saying the same is no new event. */
  readonly #transient = new Map<string, string>();
  readonly #unsubscribe: (() => void)[];

  constructor(pools: StatusPagePools, store: StatusPageStore, opts: StandaloneStatusPageOptions = {}) {
    this.#pools = pools;
    this.#store = store;
    this.#now = opts.now ?? Date.now;
    this.#ring = new EventRing(opts.events ?? 50);
    this.#unsubscribe = [
      pools.onMemberChange((c) => {
        const ns = c.view.key.split('/')[0];
        this.#record(
          c.cooledDown ? 'Warning' : 'Normal',
          `${ns}/${c.member}`,
          c.cooledDown ? 'CooledDown' : 'Recovered',
          c.cooledDown
            ? `cooled down in pool ${c.view.key}${c.reason ? ` (${c.reason})` : ''}`
            : `back in rotation in pool ${c.view.key}`,
        );
      }),
      pools.onScale((c) =>
        this.#record(
          'Normal',
          c.pool,
          c.reason,
          `${c.from === c.to ? '' : `${c.from} → `}${members(c.to)}: ${c.message}`,
        ),
      ),
      store.onDisplayChange((key) => this.#watchTransient(key)),
    ];
  }

  /** Stops listening to the pools and the store. */
  close(): void {
    for (const u of this.#unsubscribe) u();
  }

  snapshot(): StatusPageData {
    const now = this.#now();
    const live = new Map<string, Set<string>>();
    const pools = this.#pools.views().map((v) => {
      const names = new Set<string>();
      live.set(v.key, names);
      const g = this.#pools.gateway(v.key);
      const until = new Map((g?.members.cooledDown() ?? []).map((c) => [c.member, c.until]));
      const ns = v.key.split('/')[0];
      return {
        pool: v.key,
        desired: v.desired,
        ready: v.ready,
        ...(v.gateway ? { gateway: v.gateway } : {}),
        ...(v.autoscale ? { autoscale: v.autoscale } : {}),
        members: v.members.map((m) => {
          const out = pageMember(m, this.#store.get(`${ns}/${m.name}`)?.spec.placement?.zone);
          const ends = until.get(m.name);
          if (m.cooledDown && ends) out.cooledDownUntil = new Date(ends).toISOString();
          if (g) {
            const stats = g.stats.members.get(m.name);
            const totals = stats ? memberTotals(stats) : { requests: 0, bytes: 0, errors: 0 };
            const rate = this.#rates.rate(v.key, m.name, totals.requests, now);
            names.add(m.name);
            out.traffic = { ...totals, requestsPerSecond: rate };
          }
          return out;
        }),
      };
    });
    this.#rates.retain(live);
    const providers = this.#store.providerHealth().map(providerHealth);
    return {
      updatedAt: new Date(now).toISOString(),
      pools,
      ...(providers.length ? { providers } : {}),
      events: newestEvents(this.#store.events.map(storedEvent), this.#ring.list(), this.#ring.capacity),
    };
  }

  #record(
    type: StatusPageEvent['type'],
    subject: string,
    reason: string,
    message: string,
    cls?: StatusPageErrorClass,
  ): void {
    this.#ring.push({
      time: new Date(this.#now()).toISOString(),
      type,
      subject,
      reason,
      message,
      ...(cls ? { errorClass: cls } : {}),
    });
  }

  /**
   * A transient provider error makes no reconciler event (it is retried on a backoff), only a
   * Provisioned condition: the page records one event per new message of it.
   */
  #watchTransient(key: string): void {
    const proxy: ProxyObject | undefined = this.#store.get(key);
    if (!proxy) {
      this.#transient.delete(key);
      return;
    }
    const c = proxy.status?.conditions?.find((x) => x.type === 'Provisioned');
    if (c?.status !== 'False' || c.reason !== 'TransientError') {
      this.#transient.delete(key);
      return;
    }
    const message = c.message ?? '';
    if (this.#transient.get(key) === message) return;
    this.#transient.set(key, message);
    this.#record('Warning', key, 'TransientError', message, 'Transient');
  }
}

const members = (n: number) => `${n} member${n === 1 ? '' : 's'}`;

/**
 * A member as the page shows it, built by assignment in the page's field order: a thousand
 * members' object spreads cost more than the rest of an update together.
 */
function pageMember(m: PoolView['members'][number], zone: string | undefined): StatusPageMember {
  const out: StatusPageMember = { name: m.name, ready: m.ready, cooledDown: m.cooledDown === true };
  if (m.provider) out.provider = m.provider;
  if (zone) out.zone = zone;
  if (m.ip) {
    const host = m.ip.includes(':') ? `[${m.ip}]` : m.ip;
    out.address = m.port ? `${host}:${m.port}` : m.ip;
  }
  const e = m.assignedEgress;
  if (e) {
    const assigned = [e.ipv4, e.ipv6, e.ipv6Prefix].filter(Boolean).join(', ');
    if (assigned) out.assignedEgress = assigned;
  }
  if (m.egressIP) out.seenEgress = m.egressIP;
  if (m.createdAt) out.createdAt = m.createdAt;
  if (m.drainingSince) out.drainingSince = m.drainingSince;
  return out;
}

function storedEvent(e: StoredEvent): StatusPageEvent {
  const cls = FAILURE_CLASS[e.reason];
  return {
    time: e.time,
    type: e.type,
    subject: e.key,
    reason: e.reason,
    message: e.message,
    ...(cls && e.type === 'Warning' ? { errorClass: cls } : {}),
  };
}

/** The health a provider's checker wrote, without its free-form details (they may name anything). */
function providerHealth(p: ReturnType<StatusPageStore['providerHealth']>[number]): StatusPageProvider {
  const s = p.status;
  return {
    name: p.name,
    ...(s.type ? { type: s.type } : {}),
    ...(s.ready !== undefined ? { ready: s.ready } : {}),
    ...(s.message ? { message: s.message } : {}),
    ...(s.lastCheckTime ? { lastCheckTime: s.lastCheckTime } : {}),
    targets: (s.targets ?? []).map((t) => ({
      target: t.target,
      ready: t.ready,
      reason: t.reason,
      ...(t.message ? { message: t.message } : {}),
      ...(t.lastCheckTime ? { lastCheckTime: t.lastCheckTime } : {}),
    })),
  };
}
