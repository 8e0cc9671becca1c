import type { ProxyObject } from '../../api/proxy.js';
import type { ProxyKey } from '../store/proxy-store.js';

/**
 * What of a Proxy a pass acts on, apart from its status: the object's identity, its spec (by
 * generation), its deletion, finalizers, annotations (the force-delete one) and labels (a label
 * change is how a person asks for a pass now).
 */
function signature(p: ProxyObject): string {
  const m = p.metadata;
  return JSON.stringify([
    m.uid ?? '',
    m.generation ?? 0,
    m.deletionTimestamp ?? '',
    m.finalizers ?? [],
    m.annotations ?? {},
    m.labels ?? {},
  ]);
}

/**
 * Decides which store events queue a Proxy, as controller-runtime's GenerationChangedPredicate
 * does (plus deletion, finalizers, annotations and labels). The operator's own status write comes back
 * as an event; queued, it would start the next pass at once and undo the backoff the pass just
 * scheduled (a Transient failure retried after 20 ms instead of 1 s, a QuotaExceeded one after
 * 130 ms instead of a minute). Spec changes and deletions still queue the key at once. Timed
 * retries, create operations and credential changes queue keys themselves, not through here.
 */
export class ChangeFilter {
  readonly #seen = new Map<ProxyKey, string>();

  /** Records what a pass is about to act on (nothing: the Proxy is gone). */
  seen(key: ProxyKey, proxy: ProxyObject | undefined): void {
    if (proxy) this.#seen.set(key, signature(proxy));
    else this.#seen.delete(key);
  }

  /** Whether an event for `key`, whose object is now `proxy`, changes what a pass acts on. */
  changed(key: ProxyKey, proxy: ProxyObject | undefined): boolean {
    if (!proxy) {
      // Gone (or a key that is not a Proxy): let the pass find out and forget it.
      this.#seen.delete(key);
      return true;
    }
    const sig = signature(proxy);
    if (this.#seen.get(key) === sig) return false;
    this.#seen.set(key, sig);
    return true;
  }
}
