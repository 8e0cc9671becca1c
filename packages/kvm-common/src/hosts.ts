import { KeyedLock } from '@egress-proxies/keyedlock';
import { loggerOf, withSpan } from '@egress-proxies/provider-utils';
import type { Tracer } from '@opentelemetry/api';
import type { BackendCallOptions, Dialer, KvmBackend } from './backend.js';
import type { KvmHost } from './config.js';
import { detachSignal } from './detach.js';
import { observeBackend } from './observe.js';

export interface HostTableOptions {
  dialer: Dialer;
  spanPrefix: string;
  tracer?: Tracer;
}

/**
 * One pooled connection per host, dialled lazily under a per-host lock (so concurrent callers
 * share one dial) and redialled once it has died. Dedicated connections (the image upload, the
 * Checker) come from `fresh` and belong to their caller. Every connection is decorated once,
 * here where it is born, so provider code never holds an undecorated backend.
 */
export class HostTable {
  readonly #pooled = new Map<string, KvmBackend>();
  readonly #dialLock = new KeyedLock<string>();
  readonly #opts: HostTableOptions;
  #closed = false;

  constructor(opts: HostTableOptions) {
    this.#opts = opts;
  }

  /** The pooled connection of `host`, dialled if needed. Callers' aborts never cut it. */
  async get(host: KvmHost, o: BackendCallOptions = {}): Promise<KvmBackend> {
    const live = this.#pooled.get(host.name);
    if (live?.isOpen) return live;
    return this.#dialLock.withLock(
      host.name,
      async () => {
        const again = this.#pooled.get(host.name);
        if (again?.isOpen) return again;
        if (again) void again.close().catch(() => {});
        const b = detachSignal(await this.fresh(host, o));
        if (this.#closed) {
          await b.close();
          throw new Error('the provider was closed while dialling');
        }
        this.#pooled.set(host.name, b);
        return b;
      },
      o.signal ? { signal: o.signal } : {},
    );
  }

  /** A new connection owned by the caller (close it when done). */
  async fresh(host: KvmHost, o: BackendCallOptions = {}): Promise<KvmBackend> {
    const p = this.#opts.spanPrefix;
    const log = loggerOf(o);
    const started = performance.now();
    return withSpan(
      `${p}.dial`,
      { [`${p}.address`]: host.address, [`${p}.user`]: host.user, [`${p}.host`]: host.name },
      async () => {
        try {
          const raw = await this.#opts.dialer.dial(host, o);
          log.log(1, 'libvirt host connected', {
            host: host.name,
            address: host.address,
            durationMs: Math.round(performance.now() - started),
          });
          return observeBackend(raw, {
            host: host.name,
            spanPrefix: p,
            ...(this.#opts.tracer ? { tracer: this.#opts.tracer } : {}),
          });
        } catch (err) {
          log.log(1, 'libvirt host connect failed', {
            host: host.name,
            address: host.address,
            error: err instanceof Error ? err.message : String(err),
          });
          throw err;
        }
      },
      this.#opts.tracer ? { tracer: this.#opts.tracer } : {},
    );
  }

  /** Drops the pooled connection of `host` (after a failure that left it unusable). */
  forget(host: string): void {
    const b = this.#pooled.get(host);
    this.#pooled.delete(host);
    if (b) void b.close().catch(() => {});
  }

  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#pooled.values()];
    this.#pooled.clear();
    await Promise.allSettled(all.map((b) => b.close()));
  }
}
