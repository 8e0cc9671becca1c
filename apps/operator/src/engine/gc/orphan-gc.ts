import {
  type CallOptions,
  type Instance,
  instanceName,
  type Provider,
  type SecondaryResource,
} from '@egress-proxies/contract';
import type { ProxyObject } from '../../api/proxy.js';
import type { EventType } from '../../domain/events.js';
import type { OpLogger } from '../../domain/op-logger.js';
import { silentOpLogger } from '../../domain/op-logger.js';
import type { ProviderCall, ProviderHandle } from '../../domain/provider-handle.js';
import type { OperatorMetrics } from '../../telemetry/metrics.js';

export interface OrphanGcOptions {
  /** Every live Proxy (the store's cache, fully synced). */
  liveProxies: () => ProxyObject[];
  /** This installation's id: only instances carrying it are collected. */
  installation: string;
  /** An orphan younger than this is left alone (a create may be in flight). */
  graceMs: number;
  now?: () => number;
  call?: ProviderCall;
  metrics?: OperatorMetrics;
  /** Records an event about the provider for every deletion. */
  event?: (provider: string, type: EventType, reason: string, message: string) => Promise<void>;
  logger?: OpLogger;
}

/** What one pass over one provider did. */
export interface GcReport {
  provider: string;
  deleted: { id: string; kind: string }[];
  /** Instances kept, by why. */
  kept: { live: number; young: number; foreign: number; unknownAge: number };
  errors: string[];
}

/**
 * Orphan garbage collection for one provider. An instance is deleted only when all hold:
 * it carries this installation's id, its uid matches no live Proxy of the provider, and its
 * createdAt is known and older than the grace period. Secondary resources the provider can list
 * (volumes or ISOs left without their machine) are deleted when they belong to no live Proxy,
 * carry no other installation's id, and have been orphaned longer than the grace period
 * (by their createdAt, or by when this process first saw them orphaned).
 */
export class OrphanGc {
  readonly #firstSeen = new Map<string, number>();
  readonly #log: OpLogger;

  constructor(private readonly opts: OrphanGcOptions) {
    this.#log = opts.logger ?? silentOpLogger;
  }

  #now(): number {
    return this.opts.now ? this.opts.now() : Date.now();
  }

  #call<T>(handle: ProviderHandle, op: string, fn: (o: CallOptions) => Promise<T>, signal?: AbortSignal) {
    if (this.opts.call) return this.opts.call(handle, op, fn, signal);
    return fn(signal ? { signal } : {});
  }

  async collect(handle: ProviderHandle, signal?: AbortSignal): Promise<GcReport> {
    const report: GcReport = {
      provider: handle.name,
      deleted: [],
      kept: { live: 0, young: 0, foreign: 0, unknownAge: 0 },
      errors: [],
    };
    const live = this.opts
      .liveProxies()
      .filter((p) => p.spec?.provider === handle.name || p.status?.instanceProvider === handle.name);
    const liveUids = new Set(live.map((p) => p.metadata.uid).filter((u): u is string => !!u));
    const liveNames = new Set(live.map((p) => instanceName(p.metadata.namespace, p.metadata.name)));
    const now = this.#now();
    const provider: Provider = handle.provider;

    let instances: Instance[];
    try {
      instances = await this.#call(handle, 'listByTag', (o) => provider.listByTag(o), signal);
    } catch (err) {
      report.errors.push(`listByTag: ${err instanceof Error ? err.message : String(err)}`);
      this.#finish(report);
      return report;
    }
    for (const inst of instances) {
      if (inst.installation !== this.opts.installation) {
        report.kept.foreign += 1;
        continue;
      }
      if (inst.uid && liveUids.has(inst.uid)) {
        report.kept.live += 1;
        continue;
      }
      if (!inst.createdAt) {
        report.kept.unknownAge += 1;
        continue;
      }
      if (now - inst.createdAt.getTime() < this.opts.graceMs) {
        report.kept.young += 1;
        continue;
      }
      await this.#delete(handle, inst.id, 'instance', inst.uid, report, () =>
        this.#call(handle, 'delete', (o) => provider.delete(inst.id, o), signal),
      );
    }

    if (provider.listSecondary && provider.deleteSecondary) {
      let secondary: SecondaryResource[] = [];
      try {
        secondary = await this.#call(handle, 'listSecondary', (o) => provider.listSecondary!(o), signal);
      } catch (err) {
        report.errors.push(`listSecondary: ${err instanceof Error ? err.message : String(err)}`);
      }
      const seenNow = new Set<string>();
      for (const r of secondary) {
        const seenKey = `${handle.name}\u0000${r.id}`;
        seenNow.add(seenKey);
        if (r.installation && r.installation !== this.opts.installation) continue;
        if ((r.uid && liveUids.has(r.uid)) || liveNames.has(r.instanceName)) continue;
        const first = this.#firstSeen.get(seenKey) ?? now;
        this.#firstSeen.set(seenKey, first);
        const since = r.createdAt ? Math.min(r.createdAt.getTime(), first) : first;
        if (now - since < this.opts.graceMs) continue;
        await this.#delete(handle, r.id, r.kind, r.uid ?? '', report, () =>
          this.#call(handle, 'deleteSecondary', (o) => provider.deleteSecondary!(r.id, o), signal),
        );
        this.#firstSeen.delete(seenKey);
      }
      // Forget resources no longer listed (deleted by someone, or adopted again).
      for (const k of this.#firstSeen.keys()) {
        if (k.startsWith(`${handle.name}\u0000`) && !seenNow.has(k)) this.#firstSeen.delete(k);
      }
    }
    this.#finish(report);
    return report;
  }

  async #delete(
    handle: ProviderHandle,
    id: string,
    kind: string,
    uid: string,
    report: GcReport,
    fn: () => Promise<void>,
  ): Promise<void> {
    try {
      await fn();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      report.errors.push(`delete ${kind} ${id}: ${message}`);
      await this.opts.event?.(
        handle.name,
        'Warning',
        'OrphanDeleteFailed',
        `deleting orphan ${kind} ${id}: ${message}`,
      );
      return;
    }
    report.deleted.push({ id, kind });
    this.opts.metrics?.gcDeletions.inc({ provider: handle.name, kind });
    const message = `deleted orphan ${kind} ${id}${uid ? ` (owner uid ${uid} matches no live Proxy)` : ''}`;
    this.#log.info({ provider: handle.name, id, kind, uid }, 'orphan deleted');
    await this.opts.event?.(handle.name, 'Normal', 'OrphanDeleted', message);
  }

  #finish(report: GcReport): void {
    const result = report.errors.length ? 'error' : 'ok';
    this.opts.metrics?.gcRuns.inc({ provider: report.provider, result });
    if (report.errors.length)
      this.#log.warn({ provider: report.provider, errors: report.errors }, 'orphan GC pass had errors');
    else
      this.#log.debug(
        { provider: report.provider, deleted: report.deleted.length, kept: report.kept },
        'orphan GC pass',
      );
  }
}
