import { setMaxListeners } from 'node:events';
import { raceAbort } from '@egress-proxies/provider-utils';
import type { ProviderHealthStatus, ProviderHealthTarget } from '../../api/provider-health.js';
import type { OpLogger } from '../../domain/op-logger.js';
import { silentOpLogger } from '../../domain/op-logger.js';
import type { ProviderModuleError } from '../../providers/provider-module-error.js';
import type { ProviderSlot } from '../../providers/provider-set.js';
import type { OperatorMetrics } from '../../telemetry/metrics.js';
import type { HealthStore } from '../store/proxy-store.js';
import { withHealthConditions } from './health-conditions.js';

export interface HealthCheckerOptions {
  store: HealthStore;
  /** The budget of one provider's check; 30 s when absent. */
  timeoutMs?: number;
  now?: () => Date;
  metrics?: OperatorMetrics;
  logger?: OpLogger;
}

const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d+Z$/, 'Z');

/** Runs a provider's Checker and writes its ProviderHealth status. */
export class HealthChecker {
  readonly #log: OpLogger;
  readonly #conditions = new Map<string, ProviderHealthStatus['conditions']>();
  constructor(private readonly opts: HealthCheckerOptions) {
    this.#log = opts.logger ?? silentOpLogger;
  }

  /** The status for one provider (its check never throws out of here). */
  async status(slot: ProviderSlot, signal?: AbortSignal): Promise<ProviderHealthStatus> {
    const now = this.opts.now ?? (() => new Date());
    if (!slot.checker) {
      return { type: slot.type, message: 'this provider has no Checker', lastCheckTime: rfc3339(now()) };
    }
    const budget = AbortSignal.timeout(this.opts.timeoutMs ?? 30_000);
    const s = signal ? AbortSignal.any([signal, budget]) : budget;
    // A check may run many probes at once under one signal (the local one counts free ports).
    setMaxListeners(256, s);
    try {
      // Raced: a check that never looks at its signal still ends at the budget.
      const results = await raceAbort(slot.checker.check({ signal: s }), s);
      const at = rfc3339(now());
      const targets: ProviderHealthTarget[] = results.map((r) => ({
        target: r.target,
        address: r.address,
        ready: r.ready,
        reason: r.reason,
        ...(r.message ? { message: r.message } : {}),
        ...(Object.keys(r.details ?? {}).length ? { details: { ...r.details } } : {}),
        lastCheckTime: at,
      }));
      const ready = targets.length > 0 && targets.every((t) => t.ready);
      return {
        type: slot.type,
        ready,
        summary: `${targets.filter((t) => t.ready).length}/${targets.length}`,
        lastCheckTime: at,
        targets,
      };
    } catch (err) {
      return {
        type: slot.type,
        ready: false,
        message: `the check failed: ${err instanceof Error ? err.message : String(err)}`,
        lastCheckTime: rfc3339(now()),
      };
    }
  }

  /** Checks `slot` and writes the result. */
  async run(slot: ProviderSlot, signal?: AbortSignal): Promise<ProviderHealthStatus> {
    return this.#write(slot.name, await this.status(slot, signal), undefined, signal);
  }

  /**
   * Writes the health of an entry whose module could not be loaded: not ready, the condition's
   * reason ModuleLoadFailed and its message the loader's (the entry, the module and the cause).
   */
  async runLoadFailure(failure: ProviderModuleError, signal?: AbortSignal): Promise<ProviderHealthStatus> {
    const now = this.opts.now ?? (() => new Date());
    const status: ProviderHealthStatus = {
      type: failure.entry.type,
      ready: false,
      message: failure.message,
      lastCheckTime: rfc3339(now()),
    };
    return this.#write(failure.entry.name, status, 'ModuleLoadFailed', signal);
  }

  async #write(
    name: string,
    checked: ProviderHealthStatus,
    reason: string | undefined,
    signal?: AbortSignal,
  ): Promise<ProviderHealthStatus> {
    const now = this.opts.now ?? (() => new Date());
    const status = withHealthConditions(checked, this.#conditions.get(name), now(), reason);
    this.#conditions.set(name, status.conditions);
    this.opts.metrics?.providerReady.set({ provider: name }, status.ready ? 1 : 0);
    try {
      await this.opts.store.writeHealth(name, status, signal);
    } catch (err) {
      this.#log.warn({ provider: name, error: String(err) }, 'writing ProviderHealth failed');
    }
    this.#log.debug({ provider: name, ready: status.ready, summary: status.summary }, 'provider checked');
    return status;
  }
}
