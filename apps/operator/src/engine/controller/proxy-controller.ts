import { setMaxListeners } from 'node:events';
import type { Logger } from '@egress-proxies/contract';
import { traceFields } from '@egress-proxies/provider-utils';
import { SpanStatusCode } from '@opentelemetry/api';
import { FINALIZER } from '../../api/group.js';
import type { ProxyObject } from '../../api/proxy.js';
import { type OpLogger, silentOpLogger } from '../../domain/op-logger.js';
import type { OperatorMetrics } from '../../telemetry/metrics.js';
import { operatorTracer } from '../../telemetry/tracer.js';
import { CreateOperations } from '../operations/create-operations.js';
import type { Clock } from '../queue/clock.js';
import type { RateLimiterOptions } from '../queue/rate-limiter.js';
import { WorkQueue } from '../queue/work-queue.js';
import { reconcileProxy } from '../reconcile/reconcile-proxy.js';
import type {
  ProbeFn,
  ProviderCall,
  ProviderHandle,
  ReconcileContext,
  ReconcileResult,
} from '../reconcile/types.js';
import { type ProxyKey, type ProxyStore, proxyKey } from '../store/proxy-store.js';
import { type CallDeadlines, deadlineCall } from './call-deadline.js';
import { ChangeFilter } from './change-filter.js';
import { CredentialWatch } from './credential-watch.js';
import { Periodic } from './periodic.js';
import { instrumentedCall } from './provider-call.js';

/** What the controller needs to know about providers. */
/** The controller's name in the controller-runtime metrics (`controller`, the queue's `name`). */
const PROXY_CONTROLLER = 'proxy';

export interface ProviderLookup {
  get(name: string): ProviderHandle | undefined;
  names(): string[];
  /** Entries whose `module:` could not be loaded (the provider set keeps them for health). */
  failures?(): readonly { entry: { name: string }; message: string }[];
}

export interface ProxyControllerOptions {
  store: ProxyStore;
  providers: ProviderLookup;
  installation: string;
  probe: ProbeFn;
  /** Concurrent reconciles (distinct keys); 4 when absent. */
  workers?: number;
  clock?: Clock;
  rateLimiter?: RateLimiterOptions;
  metrics?: OperatorMetrics;
  logger?: OpLogger;
  /** What providers log through (V1/V2 lines). */
  providerLogger?: Logger;
  defaultProbeTarget?: string;
  pollIntervalMs?: number;
  failedProbeRetryMs?: number;
  resyncMs?: number;
  blockedRetryMs?: number;
  /**
   * The budget of one reconcile's own calls (get, delete, probe); 10 min when absent. Creates run
   * outside it, as tracked operations, to the provider's own budget.
   */
  reconcileTimeoutMs?: number;
  /** How often the providers' credential files are read again (a change releases latches); 30 s when absent. */
  credentialPollMs?: number;
  /** How soon a latched Permanent failure is tried once more; 30 min when absent. */
  latchRetryMs?: number;
  /** Creates of one provider entry that run at once (a number for all, or per entry); 8 when absent. */
  createConcurrency?: number | ((provider: string) => number);
  /** The least time between two status writes for the progress of one create; 10 s when absent. */
  createProgressIntervalMs?: number;
  /**
   * The deadlines of provider calls (`--create-timeout`, `--call-timeout`); 30 min for a create
   * (a provider entry's `createTimeout` overrides it) and 2 min for any other call when absent.
   */
  deadlines?: CallDeadlines;
  /**
   * How long a running create may still finish once its Proxy's spec changed or the Proxy is
   * being deleted, before it is aborted; 10 s when absent.
   */
  abortGraceMs?: number;
  /** Wraps the provider calls of a reconcile of `key` (standalone mode shows their progress). */
  wrapCall?: (key: ProxyKey, call: ProviderCall) => ProviderCall;
}

/**
 * The signal of one pass: aborted when the controller stops or the pass's budget runs out (with a
 * `TimeoutError`, as `AbortSignal.timeout` would). Unlike `AbortSignal.any` with a timeout, it
 * leaves nothing behind once `done()`: no timer pending for the rest of the budget, no dependant
 * kept on the controller's signal (at 10,000 Proxies those were a good part of the garbage).
 */
function passSignal(stop: AbortSignal, budgetMs: number): { signal: AbortSignal; done(): void } {
  const c = new AbortController();
  const onStop = () => c.abort(stop.reason);
  if (stop.aborted) onStop();
  else stop.addEventListener('abort', onStop, { once: true });
  const timer = setTimeout(
    () => c.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    budgetMs,
  );
  // Every provider call of the pass shares this signal, and a provider may run many steps at
  // once under it (the local provider probes ports in parallel): not a leak.
  setMaxListeners(64, c.signal);
  return {
    signal: c.signal,
    done() {
      clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
    },
  };
}

/**
 * Runs the Proxy reconciler: store changes feed a keyed work queue, N workers take distinct
 * keys, each result is written back through the store and decides the key's next visit.
 */
export class ProxyController {
  readonly queue: WorkQueue<ProxyKey>;
  /** Creates running outside reconcile passes, bounded per provider. */
  readonly creates: CreateOperations;
  readonly #log: OpLogger;
  readonly #credentials: CredentialWatch;
  readonly #credentialPoll: Periodic;
  readonly #workers: Promise<void>[] = [];
  #unsubscribe?: () => void;
  #abort = new AbortController();
  /**
   * The objects this controller wrote last, by key: the informer's cache can lag behind our own
   * writes, and reconciling the older copy would repeat work (a create, a delete) already done.
   */
  readonly #written = new Map<ProxyKey, ProxyObject>();
  /**
   * The uid of each Proxy whose finalizer this process removed. The cache can hand back the
   * object as it was for a moment after that; a pass over that stale copy would act on a Proxy
   * already gone (finish a create nobody will delete), so it is skipped.
   */
  readonly #finalized = new Map<ProxyKey, string>();
  /** Keys waiting out a backoff: until when, and for which generation. */
  readonly #backoff = new Map<ProxyKey, { until: number; generation: number | undefined }>();
  /** Lets through only the store events that change what a pass acts on (not our status writes). */
  readonly #changes = new ChangeFilter();

  constructor(private readonly opts: ProxyControllerOptions) {
    // One listener per pass in flight (as many as workers).
    setMaxListeners(0, this.#abort.signal);
    this.queue = new WorkQueue<ProxyKey>({
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.rateLimiter ? { rateLimiter: opts.rateLimiter } : {}),
      ...(opts.metrics ? opts.metrics.queueHooks(PROXY_CONTROLLER) : {}),
    });
    this.#log = opts.logger ?? silentOpLogger;
    this.creates = new CreateOperations({
      notify: (key) => this.queue.add(key),
      ...(opts.createConcurrency !== undefined ? { limit: opts.createConcurrency } : {}),
      ...(opts.createProgressIntervalMs !== undefined
        ? { progressIntervalMs: opts.createProgressIntervalMs }
        : {}),
      ...(opts.clock ? { now: () => opts.clock!.now() } : {}),
    });
    this.#credentials = new CredentialWatch(opts.providers, (names) => {
      this.#log.info({ providers: names }, 'credential files changed; retrying their latched Proxies');
      this.enqueueProviders(names);
    });
    this.#credentialPoll = new Periodic(
      async () => void (await this.#credentials.poll(this.#abort.signal)),
      opts.credentialPollMs ?? 30_000,
    );
  }

  /** Subscribes to the store (already started), queues every Proxy and starts the workers. */
  start(): void {
    this.#unsubscribe = this.opts.store.onChange((key) => {
      if (this.#changes.changed(key, this.opts.store.get(key))) this.queue.add(key);
    });
    for (const p of this.opts.store.list()) this.queue.add(proxyKey(p));
    const n = this.opts.workers ?? 4;
    for (let i = 0; i < n; i++) this.#workers.push(this.#work());
    this.#credentialPoll.start();
  }

  /** Stops taking keys and waits for reconciles in flight (aborting them after `graceMs`). */
  async stop(graceMs = 10_000): Promise<void> {
    this.#unsubscribe?.();
    this.queue.shutDown();
    await this.#credentialPoll.stop();
    const t = setTimeout(
      () => this.#abort.abort(new DOMException('operator stopping', 'AbortError')),
      graceMs,
    );
    await Promise.all(this.#workers);
    clearTimeout(t);
    await this.creates.stop(graceMs);
  }

  /** Queues every Proxy that uses (or holds an instance of) one of `providers`. */
  enqueueProviders(providers: readonly string[]): void {
    const set = new Set(providers);
    for (const p of this.opts.store.list()) {
      if (set.has(p.spec?.provider ?? '') || set.has(p.status?.instanceProvider ?? ''))
        this.queue.add(proxyKey(p));
    }
  }

  async #work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      try {
        await this.processKey(key);
      } catch (err) {
        this.#log.error({ proxy: key, error: String(err) }, 'reconcile loop failed');
        this.queue.addRateLimited(key);
      } finally {
        this.queue.done(key);
      }
    }
  }

  /** One reconcile of `key`, its writes and its requeue decision. */
  async processKey(key: ProxyKey): Promise<ReconcileResult | undefined> {
    const proxy = this.#freshest(key);
    this.#changes.seen(key, proxy);
    if (!proxy) {
      this.#finalized.delete(key);
      this.queue.forget(key);
      return undefined;
    }
    const finalized = this.#finalized.get(key);
    if (finalized !== undefined) {
      if (proxy.metadata.deletionTimestamp && proxy.metadata.uid === finalized) {
        this.queue.forget(key);
        return undefined;
      }
      this.#finalized.delete(key);
    }
    // A key backing off after a failure is not run early by another add (a create operation's
    // notice, a resync, a provider change, a write that passed the change filter): only a new
    // generation or a deletion cuts the wait short, so the documented backoff holds.
    const hold = this.#backoff.get(key);
    if (hold) {
      const remaining = hold.until - this.#clockNow();
      if (
        remaining > 0 &&
        hold.generation === proxy.metadata.generation &&
        !proxy.metadata.deletionTimestamp &&
        this.creates.peek(key) === undefined
      ) {
        this.queue.addAfter(key, remaining);
        return undefined;
      }
      this.#backoff.delete(key);
    }
    const started = performance.now();
    const log = this.#log.child({ proxy: key });
    return operatorTracer().startActiveSpan(
      'reconcile',
      { attributes: { 'proxy.namespace': proxy.metadata.namespace, 'proxy.name': proxy.metadata.name } },
      async (span) => {
        let outcome = 'error';
        const pass = passSignal(this.#abort.signal, this.opts.reconcileTimeoutMs ?? 600_000);
        try {
          const signal = pass.signal;
          const result = await reconcileProxy(proxy, this.#context(key, signal, log));
          outcome = result.outcome;
          await this.#apply(proxy, result, log);
          if (result.endpoint && result.finalizer !== 'remove')
            this.opts.store.recordEndpoint?.(key, result.endpoint);
          this.#requeue(key, result, proxy.metadata.generation);
          span.setAttribute('reconcile.outcome', outcome);
          if (result.status?.phase && result.status.phase !== proxy.status?.phase) {
            log.info(
              {
                phase: result.status.phase,
                from: proxy.status?.phase ?? '',
                message: result.status.message,
                ...traceFields(),
              },
              'proxy phase changed',
            );
          } else {
            log.debug({ outcome, requeue: result.requeue, ...traceFields() }, 'reconciled');
          }
          return result;
        } catch (err) {
          const message =
            this.opts.store.describeError?.(err) ?? (err instanceof Error ? err.message : String(err));
          span.recordException({ name: 'Error', message });
          span.setStatus({ code: SpanStatusCode.ERROR, message });
          log.warn({ error: message, ...traceFields() }, 'reconcile failed; retrying with backoff');
          this.queue.addRateLimited(key);
          return undefined;
        } finally {
          pass.done();
          this.opts.metrics?.reconciled(PROXY_CONTROLLER, outcome, (performance.now() - started) / 1000);
          span.end();
        }
      },
    );
  }

  #freshest(key: ProxyKey): ProxyObject | undefined {
    const cached = this.opts.store.get(key);
    const mine = this.#written.get(key);
    if (!cached || !mine) {
      this.#written.delete(key);
      return cached;
    }
    const rv = (p: ProxyObject) => Number(p.metadata.resourceVersion ?? Number.NaN);
    if (cached.metadata.uid === mine.metadata.uid && rv(mine) > rv(cached)) return mine;
    this.#written.delete(key);
    return cached;
  }

  #context(key: ProxyKey, signal: AbortSignal, log: OpLogger): ReconcileContext {
    const { opts } = this;
    const metrics = opts.metrics;
    const call = deadlineCall(
      instrumentedCall({
        ...(metrics ? { metrics } : {}),
        ...(opts.providerLogger ? { logger: opts.providerLogger } : {}),
      }),
      opts.deadlines ?? {},
    );
    const probe: ProbeFn = async (req, s) => {
      const r = await opts.probe(req, s);
      metrics?.probeLatency.observe({ result: r.ok ? 'ok' : 'failed' }, r.latencyMs / 1000);
      if (!r.ok) log.debug({ target: req.target, error: r.error }, 'probe failed');
      return r;
    };
    return {
      now: () => new Date(opts.clock ? opts.clock.now() : Date.now()),
      provider: (n) => opts.providers.get(n),
      providerNames: () => opts.providers.names(),
      providerLoadFailure: (n) => opts.providers.failures?.().find((f) => f.entry.name === n)?.message,
      installation: opts.installation,
      probe,
      readCloudInitSecret: (p: ProxyObject, name, key, s) =>
        opts.store.readSecret(p.metadata.namespace, name, key, s),
      call: opts.wrapCall ? opts.wrapCall(key, call) : call,
      ...(opts.defaultProbeTarget ? { defaultProbeTarget: opts.defaultProbeTarget } : {}),
      ...(opts.pollIntervalMs !== undefined ? { pollIntervalMs: opts.pollIntervalMs } : {}),
      ...(opts.failedProbeRetryMs !== undefined ? { failedProbeRetryMs: opts.failedProbeRetryMs } : {}),
      ...(opts.resyncMs !== undefined ? { resyncMs: opts.resyncMs } : {}),
      ...(opts.blockedRetryMs !== undefined ? { blockedRetryMs: opts.blockedRetryMs } : {}),
      signal,
      createOps: this.creates.slot(key),
      credentialDigest: (h) => this.#credentials.digest(h, signal),
      ...(opts.latchRetryMs !== undefined ? { latchRetryMs: opts.latchRetryMs } : {}),
      ...(opts.abortGraceMs !== undefined ? { abortGraceMs: opts.abortGraceMs } : {}),
    };
  }

  async #apply(proxy: ProxyObject, result: ReconcileResult, log: OpLogger): Promise<void> {
    const { store } = this.opts;
    let current = proxy;
    if (result.finalizer === 'add') current = await store.addFinalizer(current, FINALIZER);
    // Events first: a status write can fail on a conflict, and the event still says what happened.
    await Promise.all(result.events.map((e) => store.event(current, e.type, e.reason, e.message)));
    for (const e of result.events) {
      if (e.type === 'Warning') log.warn({ reason: e.reason, message: e.message }, 'proxy event');
    }
    if (result.status) current = await store.updateStatus(current, result.status);
    if (result.finalizer === 'remove') {
      await store.removeFinalizer(current, FINALIZER);
      this.#written.delete(proxyKey(proxy));
      if (proxy.metadata.uid) this.#finalized.set(proxyKey(proxy), proxy.metadata.uid);
    } else if (current !== proxy && current.metadata?.resourceVersion) {
      this.#written.set(proxyKey(proxy), current);
    }
  }

  #clockNow(): number {
    return this.opts.clock ? this.opts.clock.now() : Date.now();
  }

  #requeue(key: ProxyKey, result: ReconcileResult, generation?: number): void {
    const r = result.requeue;
    if (r.type === 'backoff') {
      const ms = this.queue.addRateLimited(key, r.tier);
      this.#backoff.set(key, { until: this.#clockNow() + ms, generation });
      return;
    }
    this.#backoff.delete(key);
    // Only a pass that got somewhere resets the backoff: one that merely waits on a create keeps
    // the failure count, so a create failing again backs off further (1 s, 2 s, 4 s, ...).
    if (!(r.type === 'after' && r.keepBackoff)) this.queue.forget(key);
    if (r.type === 'after') this.queue.addAfter(key, r.ms);
  }
}
