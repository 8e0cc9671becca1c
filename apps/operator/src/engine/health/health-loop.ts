import { type OpLogger, silentOpLogger } from '../../domain/op-logger.js';
import type { ProviderSet } from '../../providers/provider-set.js';
import { Periodic } from '../controller/periodic.js';
import type { HealthStore } from '../store/proxy-store.js';
import type { HealthChecker } from './health-checker.js';

export interface HealthLoopOptions {
  providers: Pick<ProviderSet, 'slots' | 'names' | 'onChange'> & Partial<Pick<ProviderSet, 'failures'>>;
  checker: HealthChecker;
  store: HealthStore;
  /** The period of a full round; 60 s when absent. */
  intervalMs?: number;
  logger?: OpLogger;
}

/**
 * The ProviderHealth rounds: every provider's Checker on an interval, and the added or changed
 * providers again as soon as the providers config changes. The cluster and standalone mode both
 * run it, each with its own HealthStore.
 */
export class HealthLoop {
  readonly #log: OpLogger;
  #periodic?: Periodic;
  #unsubscribe?: () => void;

  constructor(private readonly opts: HealthLoopOptions) {
    this.#log = opts.logger ?? silentOpLogger;
  }

  /** Checks the providers named (all when absent), then drops the health of removed ones. */
  async checkNow(names?: readonly string[]): Promise<void> {
    const { providers, checker, store } = this.opts;
    const slots = providers.slots().filter((s) => !names || names.includes(s.name));
    // An entry whose module failed to load has no slot; its health carries the cause.
    const failures = (providers.failures?.() ?? []).filter((f) => !names || names.includes(f.entry.name));
    await Promise.all([
      ...slots.map((s) => checker.run(s)),
      ...failures.map((f) => checker.runLoadFailure(f)),
    ]);
    const failed = (providers.failures?.() ?? []).map((f) => f.entry.name);
    await store
      .pruneHealth([...providers.names(), ...failed])
      .catch((err) => this.#log.warn({ error: String(err) }, 'pruning ProviderHealth failed'));
  }

  /** Starts the rounds; resolves when the first one is over. */
  start(): Promise<void> {
    this.#periodic = new Periodic(
      () => this.checkNow(),
      this.opts.intervalMs ?? 60_000,
      (err) => this.#log.warn({ error: String(err) }, 'provider health round failed'),
    );
    this.#unsubscribe = this.opts.providers.onChange((diff) => {
      void this.checkNow([...diff.added, ...diff.changed]).catch(() => {});
    });
    return this.#periodic.trigger();
  }

  async stop(): Promise<void> {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    await this.#periodic?.stop();
  }
}
