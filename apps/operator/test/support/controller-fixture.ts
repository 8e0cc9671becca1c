import { ProxyController } from '../../src/engine/controller/proxy-controller.js';
import type { BackoffPolicy } from '../../src/engine/queue/rate-limiter.js';
import type { ProbeFn, ProviderHandle } from '../../src/engine/reconcile/types.js';
import { MemoryProxyStore } from '../../src/engine/store/memory-proxy-store.js';

/** A probe that always passes. */
export const okProbe: ProbeFn = async () => ({ ok: true, latencyMs: 1 });

/** Polls `fn` every 5 ms; throws `timed out: <what>` after `ms`. */
export async function until(what: string, fn: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

type ControllerOptions = ConstructorParameters<typeof ProxyController>[0];

/**
 * A controller over `handles` for the controller's own tests: installation `install-A`, probes
 * that pass, a 5 ms poll, a fresh memory store unless `store` is given, and backoff `tiers`
 * without jitter when given (so a test can hold gaps to them; the defaults otherwise). Any other
 * option comes from `opts`.
 */
export function testController(
  handles: ProviderHandle[],
  opts: Partial<Omit<ControllerOptions, 'store'>> & {
    store?: MemoryProxyStore;
    tiers?: { transient: BackoffPolicy; quota: BackoffPolicy };
  } = {},
): { store: MemoryProxyStore; c: ProxyController } {
  const { store = new MemoryProxyStore(), tiers, ...extra } = opts;
  const byName = new Map(handles.map((h) => [h.name, h]));
  const c = new ProxyController({
    store,
    providers: { get: (n) => byName.get(n), names: () => [...byName.keys()] },
    installation: 'install-A',
    probe: okProbe,
    pollIntervalMs: 5,
    ...(tiers ? { rateLimiter: { jitter: 0, tiers } } : {}),
    ...extra,
  });
  return { store, c };
}
