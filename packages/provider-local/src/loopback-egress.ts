import type { Context } from './context.js';
import { decodeState } from './state-file.js';

/** Serializes choices across creates, like the port lock: two new proxies never share an address. */
export const LOOPBACK_EGRESS_LOCK = '\0loopback-egress';

/** 127.0.0.1 stays the host's own; proxies get .2 upwards. */
const FIRST = 2;
const LAST = 254;

/** The lowest 127.0.0.N (N >= 2) no other instance of this provider leaves from (pure). */
export function freeLoopbackAddress(inUse: ReadonlySet<string>): string | undefined {
  for (let n = FIRST; n <= LAST; n++) {
    const a = `127.0.0.${n}`;
    if (!inUse.has(a)) return a;
  }
  return undefined;
}

/** The outgoing addresses this provider's instances use now, from their state files. */
export async function loopbackAddressesInUse(ctx: Context): Promise<Set<string>> {
  return new Set((await egressHolders(ctx)).keys());
}

/**
 * Each outgoing address a live instance of this provider holds, and the instance holding it,
 * read from the state files: the marks are the allocation table, so it survives restarts and
 * an address returns to the pool when its instance's state file goes.
 */
export async function egressHolders(ctx: Context): Promise<Map<string, string>> {
  const held = new Map<string, string>();
  for (const name of await ctx.backend.listStates(ctx.signal)) {
    const raw = await ctx.backend.readState(ctx.signal, name);
    if (raw === undefined) continue;
    const d = decodeState(raw);
    if (d.kind === 'marked' && d.record.localAddress) held.set(d.record.localAddress, name);
  }
  return held;
}
