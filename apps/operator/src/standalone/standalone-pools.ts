import { RECYCLE_ANNOTATION } from '../api/proxy-pool.js';
import { type OpLogger, silentOpLogger } from '../domain/op-logger.js';
import type { ProxyUsers } from '../gateway/basic-auth.js';
import type { GatewayMetrics } from '../gateway/gateway-metrics.js';
import type { RunningGateway } from '../gateway/gateway-server.js';
import { specSettings, wakeSettings } from '../gateway/spec-settings.js';
import type { AutoscaleDecision } from '../pool/autoscale-plan.js';
import { DEFAULT_DRAIN_TIMEOUT_MS, splitDeletions } from '../pool/member-drain.js';
import { memberName } from '../pool/member-name.js';
import { planInputFor } from '../pool/plan-input.js';
import { planPool } from '../pool/plan-pool.js';
import type { PoolDocument } from '../pool/pool-documents.js';
import { gatewayMember, memberReady } from '../pool/pool-member.js';
import { templateHash } from '../pool/template-hash.js';
import type { FileProxyStore } from './file-proxy-store.js';
import { memberDocument } from './member-document.js';
import { markDeletions, settleDrains } from './member-drains.js';
import {
  type AutoscaleRecord,
  type MemberRecord,
  type PoolState,
  readPoolState,
  writePoolState,
} from './member-file.js';
import { autoscaleRound } from './pool-autoscale.js';
import { startPoolGateway } from './pool-gateway-start.js';
import { type PoolMemberChange, type PoolScaleChange, type PoolView, poolView } from './pool-view.js';
import type { LoadedDocuments, ProxyDocument } from './proxy-documents.js';

export type { PoolAutoscaleView } from './member-file.js';
export type { PoolMemberChange, PoolScaleChange, PoolView } from './pool-view.js';

export interface StandalonePoolsOptions {
  stateDir: string;
  logger?: OpLogger;
  /** How often pools are re-planned (members change state between scans). */
  intervalMs?: number;
  now?: () => number;
  /** Where the gateways listen (default 127.0.0.1); off loopback startGateway requires users. */
  gatewayHost?: string;
  /** The gateways' proxy users (Basic auth; `<user>-session-<id>` for sessions). */
  gatewayUsers?: ProxyUsers;
  /** A SOCKS5 listener for the pools' gateways (a busy port: a free one instead, logged). */
  gatewaySocks?: { host: string; port: number };
  /**
   * How long a member chosen to go keeps its open tunnels and requests before it is deleted anyway
   * (default DEFAULT_DRAIN_TIMEOUT_MS, 2 minutes).
   */
  drainTimeoutMs?: number;
}

/**
 * ProxyPools under `up`: members are Proxies this controller adds to the file store's documents
 * (so the same reconciler creates them), planned by planPool, remembered in pools.json; each
 * pool's gateway runs in-process over its Ready members.
 */
export class StandalonePools {
  readonly #opts: StandalonePoolsOptions;
  readonly #log: OpLogger;
  readonly #state: PoolState;
  readonly #docs = new Map<string, PoolDocument>();
  readonly #gateways = new Map<string, RunningGateway>();
  readonly #starting = new Map<string, Promise<void>>();
  #store?: FileProxyStore;
  #metrics?: GatewayMetrics | undefined;
  #timer?: NodeJS.Timeout;
  #stopped = false;
  readonly #listeners = new Set<(change: PoolMemberChange) => void>();
  readonly #scaleListeners = new Set<(change: PoolScaleChange) => void>();
  /** The last autoscale decision per pool key (for the view; the size and clocks persist in the state). */
  readonly #decisions = new Map<string, AutoscaleDecision>();
  #stepping?: Promise<void> | undefined;
  #stepAgain = false;

  constructor(opts: StandalonePoolsOptions) {
    this.#opts = opts;
    this.#log = (opts.logger ?? silentOpLogger).child({ component: 'pools' });
    this.#state = readPoolState(opts.stateDir);
  }

  /** The store to read members from; gateway metrics go on `metrics` (the operator's registry). */
  attach(store: FileProxyStore, metrics?: GatewayMetrics): void {
    this.#store = store;
    this.#metrics = metrics;
  }

  /** Called by the store on every scan: the pool documents in, the member Proxies out. */
  update(loaded: LoadedDocuments): ProxyDocument[] {
    const unreadable = new Set(loaded.unreadable);
    const seen = new Set<string>();
    for (const d of loaded.pools ?? []) {
      const key = `${d.namespace}/${d.name}`;
      seen.add(key);
      this.#docs.set(key, d);
    }
    // A pool whose file cannot be read right now keeps its members, like a Proxy keeps its spec.
    for (const [key, d] of this.#docs)
      if (!seen.has(key) && !unreadable.has(d.file)) {
        this.#docs.delete(key);
        delete this.#state.members[key];
        this.#persist();
      }
    const out: ProxyDocument[] = [];
    for (const [key, d] of this.#docs)
      for (const m of this.#state.members[key] ?? []) out.push(memberDocument(d, m));
    return out;
  }

  start(): void {
    const tick = () => {
      if (this.#stopped) return;
      void this.step().finally(() => {
        this.#timer = setTimeout(tick, this.#opts.intervalMs ?? 1000);
      });
    };
    tick();
  }

  /** A request waits on a pool at zero: plan now rather than at the next tick (the wake's latency). */
  #wake(): void {
    if (this.#stopped) return;
    void this.step().catch((err) => this.#log.warn({ error: String(err) }, 'pool: wake step failed'));
  }

  /** Stops planning and drains the gateways (open tunnels get `graceMs`). */
  async stop(graceMs = 5000): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await Promise.all([...this.#starting.values()]);
    await Promise.all([...this.#gateways.values()].map((g) => g.close(graceMs)));
    this.#gateways.clear();
  }

  views(): PoolView[] {
    return [...this.#docs.entries()].map(([key, d]) =>
      poolView({
        key,
        doc: d,
        records: this.#state.members[key] ?? [],
        observe: (m) => this.#observe(d, m),
        desired: this.#desired(key, d),
        gateway: this.#gateways.get(key),
        decision: this.#decisions.get(key),
      }),
    );
  }

  /** The size the pool wants: spec.replicas, or with autoscale the autoscaler's last choice. */
  #desired(key: string, d: PoolDocument): number {
    return d.spec.autoscale ? (this.#state.autoscale?.[key]?.replicas ?? d.spec.replicas) : d.spec.replicas;
  }

  /**
   * Calls `listener` when a gateway cools a member down or the cooldown ends, with the pool's
   * view at that moment (so `up --output json` can show \`cooledDown\` members as they change).
   * Returns the unsubscribe function.
   */
  onMemberChange(listener: (change: PoolMemberChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #memberChanged(key: string, member: string, cooledDown: boolean, reason?: string): void {
    if (!this.#listeners.size) return;
    const view = this.views().find((v) => v.key === key);
    if (!view) return;
    for (const l of this.#listeners) l({ view, member, cooledDown, ...(reason ? { reason } : {}) });
  }

  /** Calls `listener` when an autoscaled pool's size or Scaling reason changes. Returns the unsubscribe function. */
  onScale(listener: (change: PoolScaleChange) => void): () => void {
    this.#scaleListeners.add(listener);
    return () => this.#scaleListeners.delete(listener);
  }

  gateway(key: string): RunningGateway | undefined {
    return this.#gateways.get(key);
  }

  /**
   * One planning round over every pool; exposed for tests. A call while a round runs (a wake)
   * runs one more round after it rather than a second one beside it.
   */
  async step(): Promise<void> {
    if (this.#stepping) {
      this.#stepAgain = true;
      return this.#stepping;
    }
    this.#stepping = (async () => {
      do {
        this.#stepAgain = false;
        await this.#stepOnce();
      } while (this.#stepAgain && !this.#stopped);
    })().finally(() => {
      this.#stepping = undefined;
    });
    return this.#stepping;
  }

  /** With spec.autoscale: the size from this gateway's load (the only replica under `up`), remembered in the state. */
  #autoscale(key: string, d: PoolDocument): boolean {
    const as = d.spec.autoscale;
    if (!as) return false;
    const prev: AutoscaleRecord = this.#state.autoscale?.[key] ?? { replicas: d.spec.replicas };
    const { decision, next } = autoscaleRound(as, prev, this.#gateways.get(key)?.load(), this.#now());
    const old = this.#decisions.get(key);
    this.#decisions.set(key, decision);
    if (decision.replicas !== prev.replicas || old?.reason !== decision.reason) {
      this.#log.info(
        { pool: key, from: prev.replicas, to: decision.replicas, reason: decision.reason },
        `pool: ${decision.message}`,
      );
      const change = { pool: key, from: prev.replicas, to: decision.replicas, reason: decision.reason };
      for (const l of this.#scaleListeners) l({ ...change, message: decision.message });
    }
    this.#state.autoscale = { ...this.#state.autoscale, [key]: next };
    // The clocks move every round; the file is written when the size changes.
    return decision.replicas !== prev.replicas;
  }

  async #stepOnce(): Promise<void> {
    const store = this.#store;
    if (!store) return;
    let changed = false;
    let gatewayStarted = false;
    for (const [key, d] of this.#docs) {
      const hash = templateHash(d.spec.template);
      const recycle = d.annotations[RECYCLE_ANNOTATION];
      const fresh = recycle && this.#state.recycled?.[key] !== recycle ? recycle : undefined;
      if (this.#autoscale(key, d)) changed = true;
      const usage = this.#gateways.get(key)?.members.usage();
      const busy = this.#gateways.get(key)?.members.busy();
      const open = (name: string) => usage?.get(name)?.connections ?? 0;
      if (this.#settleDrains(key, d, open)) changed = true;
      const members = this.#state.members[key] ?? [];
      // Draining members are on their way out: the plan is over the members that serve.
      const serving = members.filter((m) => !m.draining);
      const observed = serving.map((m) => {
        const { ready, cooledDown, proxy } = this.#observe(d, m);
        const egressIP = proxy.status?.egressIP;
        const b = busy?.get(m.name);
        return {
          ...m,
          ready,
          cooledDown,
          ...(egressIP ? { egressIP } : {}),
          ...(b ? { busy: b } : {}),
        };
      });
      const spec = { ...d.spec, replicas: this.#desired(key, d) };
      const plan = planPool(planInputFor(spec, observed, this.#now(), fresh));
      if (fresh && plan.delete.some((x) => x.name === fresh)) {
        this.#state.recycled = { ...this.#state.recycled, [key]: fresh };
      }
      if (plan.create.length || plan.delete.length) {
        const { deleteNow, drain } = splitDeletions(plan.delete, open, this.#now());
        const next = markDeletions(members, deleteNow, drain);
        for (const t of plan.create)
          next.push({
            name: memberName(d.name),
            provider: t.provider,
            ...(t.zone ? { zone: t.zone } : {}),
            createdAt: this.#now(),
            templateHash: hash,
          });
        this.#state.members[key] = next;
        this.#log.info(
          {
            pool: key,
            created: plan.create.length,
            deleted: deleteNow.map((x) => `${x.name} (${x.reason})`),
            ...(drain.length
              ? { draining: drain.map((x) => `${x.name} (${x.reason}, ${open(x.name)} open)`) }
              : {}),
          },
          'pool: members changed',
        );
        changed = true;
      }
      const had = this.#gateways.has(key);
      await this.#ensureGateway(key, d);
      const g = this.#gateways.get(key);
      // A gateway that just started is news for `status`, which reads the state file.
      if (g && !had) gatewayStarted = true;
      // A changed spec.gateway applies to what comes next (the port only at the gateway's start).
      g?.configure({ ...specSettings(d.spec.gateway), ...wakeSettings(d.spec.autoscale) });
      // The same members, by the same rule, as a gateway in the cluster routes through; a
      // draining member is left out, so it gets no new request and its sessions move (as on a
      // cooldown) while the tunnels already open through it go on.
      g?.members.setMembers(
        (this.#state.members[key] ?? []).flatMap((m) => {
          if (m.draining) return [];
          const member = gatewayMember(this.#observe(d, m).proxy);
          return member ? [member] : [];
        }),
      );
    }
    if (changed) {
      this.#persist();
      await store.rescan();
    }
    if (gatewayStarted) store.flush();
  }

  /** The drain's bookkeeping for one pool (see member-drains.ts), logged. Returns whether the members changed. */
  #settleDrains(key: string, d: PoolDocument, open: (name: string) => number): boolean {
    const settled = settleDrains(this.#state.members[key] ?? [], {
      open,
      now: this.#now(),
      timeoutMs: this.#opts.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS,
      desired: this.#desired(key, d),
    });
    if (!settled) return false;
    this.#state.members[key] = settled.members;
    for (const e of settled.ended)
      this.#log.info(
        { pool: key, member: e.name, open: open(e.name) },
        e.why === 'drained'
          ? 'pool: member drained; deleting it'
          : 'pool: member still carries connections at the drain timeout; deleting it',
      );
    for (const name of settled.back)
      this.#log.info(
        { pool: key, member: name },
        'pool: the pool wants more members again; a draining member serves again',
      );
    return true;
  }

  /** A member's Proxy as the store has it (before its first scan: the document it will get), and its cooldown. */
  #observe(d: PoolDocument, m: MemberRecord) {
    const proxy = this.#store?.get(`${d.namespace}/${m.name}`) ?? memberDocument(d, m).proxy;
    const cooled = this.#gateways.get(`${d.namespace}/${d.name}`)?.members.cooledDown() ?? [];
    return { proxy, ready: memberReady(proxy), cooledDown: cooled.some((c) => c.member === m.name) };
  }

  async #ensureGateway(key: string, d: PoolDocument): Promise<void> {
    if (this.#gateways.has(key) || this.#stopped || d.spec.gateway?.enabled === false) return;
    const pending = this.#starting.get(key);
    if (pending) return pending;
    const gw = d.spec.gateway;
    const users = this.#opts.gatewayUsers;
    if (gw?.usersSecret && !users)
      this.#log.warn(
        { pool: key },
        'pool: standalone mode has no Secrets; give up --gateway-users DIR for the gateway users (until then it listens without auth)',
      );
    const opts = {
      pool: key,
      host: this.#opts.gatewayHost ?? '127.0.0.1',
      ...(users ? { users } : {}),
      logger: this.#log,
      ...(this.#metrics ? { metrics: this.#metrics } : {}),
      ...specSettings(gw),
      ...wakeSettings(d.spec.autoscale),
      onWake: () => this.#wake(),
      onCooldown: (member: string, reason: string, _until: number, _o: unknown, change: string) => {
        if (change === 'started') this.#memberChanged(key, member, true, reason);
      },
      onRecover: (member: string) => this.#memberChanged(key, member, false),
    };
    const start = (async () => {
      this.#gateways.set(
        key,
        await startPoolGateway(opts, gw?.port ?? 8080, this.#opts.gatewaySocks, this.#log),
      );
    })().finally(() => this.#starting.delete(key));
    this.#starting.set(key, start);
    return start;
  }

  #now(): number {
    return (this.#opts.now ?? Date.now)();
  }

  #persist(): void {
    writePoolState(this.#opts.stateDir, this.#state);
  }
}
