import type { StatusPageData, StatusPageMember, StatusPagePool } from './page-data.js';

/**
 * What a live page is sent after its first, whole, update: each pool without its members, and
 * of its members only those that changed; `removed` names those that left and `order` is every
 * member's name when the order changed (always when one came). Providers and events come when
 * they changed. At 1,000 members an update where a few carried traffic is a few KiB, not the
 * whole fleet.
 */
export interface StatusPagePatch {
  updatedAt: string;
  pools: StatusPagePoolPatch[];
  providers?: StatusPageData['providers'];
  events?: StatusPageData['events'];
}

export type StatusPagePoolPatch = Omit<StatusPagePool, 'members'> & {
  members?: StatusPageMember[];
  removed?: string[];
  order?: string[];
};

interface SentPool {
  head: string;
  rows: Map<string, string>;
  order: string[];
}

/**
 * The patches between successive snapshots, for pages that were all sent the same updates (the
 * server sends every open page each patch, and a page that connects the whole data). Compares
 * each member's JSON with what was last sent.
 */
export class UpdateStream {
  #pools = new Map<string, SentPool>();
  #providers = '';
  #events = '';
  #started = false;

  /** The patch from the last snapshot to `data`, or undefined when nothing but the time changed. */
  next(data: StatusPageData): StatusPagePatch | undefined {
    let changed = !this.#started || data.pools.length !== this.#pools.size;
    this.#started = true;
    const sent = new Map<string, SentPool>();
    const pools = data.pools.map((p) => {
      const { members, ...head } = p;
      const before = this.#pools.get(p.pool);
      if (!before) changed = true;
      const now: SentPool = { head: JSON.stringify(head), rows: new Map(), order: [] };
      sent.set(p.pool, now);
      const out: StatusPagePoolPatch = { ...head };
      const fresh: StatusPageMember[] = [];
      for (const m of members) {
        const row = JSON.stringify(m);
        now.rows.set(m.name, row);
        now.order.push(m.name);
        if (before?.rows.get(m.name) !== row) fresh.push(m);
      }
      const removed = before ? [...before.rows.keys()].filter((n) => !now.rows.has(n)) : [];
      const reordered = !before || !sameOrder(before.order, now.order);
      if (fresh.length) out.members = fresh;
      if (removed.length) out.removed = removed;
      if (reordered) out.order = now.order;
      if (fresh.length || removed.length || reordered || before?.head !== now.head) changed = true;
      return out;
    });
    this.#pools = sent;
    const patch: StatusPagePatch = { updatedAt: data.updatedAt, pools };
    const providers = JSON.stringify(data.providers ?? []);
    if (providers !== this.#providers) {
      this.#providers = providers;
      patch.providers = data.providers ?? [];
      changed = true;
    }
    const events = JSON.stringify(data.events ?? []);
    if (events !== this.#events) {
      this.#events = events;
      patch.events = data.events ?? [];
      changed = true;
    }
    return changed ? patch : undefined;
  }
}

function sameOrder(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A page's data after `patch` (what the page's script does, for tests and tools). */
export function applyPatch(data: StatusPageData, patch: StatusPagePatch): StatusPageData {
  const before = new Map(data.pools.map((p) => [p.pool, p]));
  return {
    updatedAt: patch.updatedAt,
    pools: patch.pools.map(({ members, removed, order, ...head }) => {
      const rows = new Map((before.get(head.pool)?.members ?? []).map((m) => [m.name, m]));
      for (const n of removed ?? []) rows.delete(n);
      for (const m of members ?? []) rows.set(m.name, m);
      const names = order ?? [...rows.keys()];
      return { ...head, members: names.map((n) => rows.get(n) as StatusPageMember) };
    }),
    ...((patch.providers ?? data.providers) ? { providers: patch.providers ?? data.providers } : {}),
    ...((patch.events ?? data.events) ? { events: patch.events ?? data.events } : {}),
  };
}
