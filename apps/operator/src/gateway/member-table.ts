import { SessionTable, sessionHash } from './session-table.js';

/** One pool member the gateway may route through: a Ready Proxy's endpoint. */
export interface GatewayMember {
  name: string;
  host: string;
  port: number;
}

export type Selection = 'round-robin' | 'random' | 'least-connections';
export const SELECTIONS: readonly Selection[] = ['round-robin', 'random', 'least-connections'];

/** Where a cooldown came from: this gateway's own observation, or another replica's mark. */
export type CooldownOrigin = 'local' | 'shared';

/** A member entered cooldown, or a later ban moved the end of the one it was in. */
export type CooldownChange = 'started' | 'extended';

export type CooldownListener = (
  member: string,
  reason: string,
  until: number,
  origin: CooldownOrigin,
  change: CooldownChange,
) => void;

/** A member's cooldown as every replica can read it: until when, and why. */
export interface CooldownMark {
  member: string;
  until: number;
  reason: string;
}

/** What can change while the gateway runs (the pool's spec.gateway). */
export interface MemberTableSettings {
  selection?: Selection;
  /** How long the gateway remembers a session's member after its last use (to say it moved). */
  sessionTtlMs?: number;
  /** How long a member whose connect failed, or that answered a ban status, gets no new traffic. */
  cooldownMs?: number;
}

export interface MemberTableOptions extends MemberTableSettings {
  now?: () => number;
  random?: () => number;
  /**
   * Called when a member enters cooldown (metrics, the shared mark, `rotation.onBan`), and again
   * each time a later ban moves its end: whatever records the cooldown must follow its end.
   */
  onCooldown?: CooldownListener;
  /** Called when a member's cooldown ends or the member leaves while cooled down. */
  onRecover?: (member: string) => void;
}

/** What a choice returned: the member, and for a session the member it had before (when it moved). */
export interface Choice {
  member: GatewayMember;
  movedFrom?: string;
}

interface SessionMemory {
  member: string;
  expires: number;
}

/**
 * The members and everything the gateway decides about them: which are eligible (present and
 * not cooled down), who gets the next connection, which member a session goes to, how many
 * connections each holds.
 *
 * A session's member is a function of the members and their cooldowns only (a Maglev table over
 * the names, skipping cooled-down members), never of this replica's history: replicas that see
 * the same members and the same cooldown marks send a session to the same member. The memory of
 * a session's last member only serves to tell the client when it moved.
 */
export class MemberTable {
  #selection: Selection;
  #sessionTtlMs: number;
  #cooldownMs: number;
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #onCooldown: MemberTableOptions['onCooldown'];
  readonly #onRecover: MemberTableOptions['onRecover'];
  #members = new Map<string, GatewayMember>();
  #table = new SessionTable([]);
  /** The members in table order, and which of them are cooled down (1) now. */
  #byIndex: GatewayMember[] = [];
  #cooled = new Uint8Array(0);
  #eligible: GatewayMember[] = [];
  #active = new Map<string, number>();
  #cooldown = new Map<string, { until: number; reason: string }>();
  #nextExpiry = Number.POSITIVE_INFINITY;
  #sessions = new Map<string, SessionMemory>();
  #next = 0;
  #lastSweep = 0;
  readonly #eligibleListeners = new Set<() => void>();
  readonly #notCooled = (i: number) => this.#cooled[i] === 0;

  constructor(opts: MemberTableOptions = {}) {
    this.#selection = opts.selection ?? 'round-robin';
    this.#sessionTtlMs = opts.sessionTtlMs ?? 10 * 60_000;
    this.#cooldownMs = opts.cooldownMs ?? 60_000;
    this.#now = opts.now ?? Date.now;
    this.#random = opts.random ?? Math.random;
    this.#onCooldown = opts.onCooldown;
    this.#onRecover = opts.onRecover;
  }

  /** Applies new settings (a pool spec change); cooldowns already running keep their end. */
  configure(s: MemberTableSettings): void {
    if (s.selection) this.#selection = s.selection;
    if (s.sessionTtlMs !== undefined) this.#sessionTtlMs = s.sessionTtlMs;
    if (s.cooldownMs !== undefined) this.#cooldownMs = s.cooldownMs;
  }

  get settings(): Required<MemberTableSettings> {
    return { selection: this.#selection, sessionTtlMs: this.#sessionTtlMs, cooldownMs: this.#cooldownMs };
  }

  /** Replaces the member set (the Ready members of the pool, as the store reports them). */
  setMembers(members: readonly GatewayMember[]): void {
    const next = new Map(members.map((m) => [m.name, m]));
    const sameNames = next.size === this.#members.size && [...next.keys()].every((n) => this.#members.has(n));
    this.#members = next;
    for (const name of [...this.#cooldown.keys()])
      if (!next.has(name)) {
        this.#cooldown.delete(name);
        this.#onRecover?.(name);
      }
    // The table depends on the names only; an address change keeps it.
    if (!sameNames) this.#table = new SessionTable(next.keys());
    this.#refresh();
  }

  members(): GatewayMember[] {
    return [...this.#members.values()];
  }

  /** The members that get new connections now. */
  eligible(): readonly GatewayMember[] {
    this.#expireCooldowns();
    return this.#eligible;
  }

  /** Members cooled down now, with the reason and until when. */
  cooledDown(): CooldownMark[] {
    this.#expireCooldowns();
    return [...this.#cooldown.entries()].map(([member, c]) => ({ member, ...c }));
  }

  active(member: string): number {
    return this.#active.get(member) ?? 0;
  }

  /**
   * Per member: connections open through it and sessions last used within the TTL, so a
   * scale-down can take the members nobody uses first. Members with neither are left out.
   */
  usage(): Map<string, { connections: number; sessions: number }> {
    const now = this.#now();
    const out = new Map<string, { connections: number; sessions: number }>();
    const entry = (m: string) => out.get(m) ?? out.set(m, { connections: 0, sessions: 0 }).get(m)!;
    for (const [m, n] of this.#active) entry(m).connections = n;
    // A session on a member no longer in the table (draining, gone) moves on its next request.
    for (const s of this.#sessions.values())
      if (s.expires > now && this.#members.has(s.member)) entry(s.member).sessions++;
    return out;
  }

  /** Open connections plus live sessions per member, for the members that carry any (scale-down order). */
  busy(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [m, u] of this.usage())
      if (u.connections + u.sessions > 0) out.set(m, u.connections + u.sessions);
    return out;
  }

  /** Picks a member for a new connection; `exclude` skips members that just failed this connection. */
  choose(session?: string, exclude?: ReadonlySet<string>): Choice | undefined {
    let pool = this.eligible();
    if (exclude?.size) pool = pool.filter((m) => !exclude.has(m.name));
    if (pool.length === 0) return undefined;
    if (session !== undefined) return this.#sticky(session, exclude);
    return { member: this.#pick(pool) };
  }

  /**
   * Calls `listener` (in a microtask, off the caller's stack) whenever the eligible members change
   * and some are eligible: a request held while the pool woke can go. Returns the unsubscribe.
   */
  onEligible(listener: () => void): () => void {
    this.#eligibleListeners.add(listener);
    return () => this.#eligibleListeners.delete(listener);
  }

  /** Counts a connection on `member` until the returned function is called (once). */
  hold(member: string): () => void {
    this.#active.set(member, this.active(member) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = this.active(member) - 1;
      if (n > 0) this.#active.set(member, n);
      else this.#active.delete(member);
    };
  }

  /** Takes a member out of rotation for the cooldown period (a failed connect, a 403/429). */
  coolDown(member: string, reason: string): void {
    this.#setCooldown(member, this.#now() + this.#cooldownMs, reason, 'local');
  }

  /**
   * Cooldowns other replicas (or this one, before a restart) marked: each member is cooled down
   * until the mark's end, so every replica excludes the same members.
   */
  applyMarks(marks: readonly CooldownMark[]): void {
    for (const m of marks) this.#setCooldown(m.member, m.until, m.reason, 'shared');
  }

  #setCooldown(member: string, until: number, reason: string, origin: CooldownOrigin): void {
    if (!this.#members.has(member) || until <= this.#now()) return;
    const old = this.#cooldown.get(member);
    if (old && old.until >= until) return;
    this.#cooldown.set(member, { until, reason });
    this.#nextExpiry = Math.min(this.#nextExpiry, until);
    // A member already out of rotation keeps the table; only the end (and its record) moves.
    if (!old) this.#refresh();
    this.#onCooldown?.(member, reason, until, origin, old ? 'extended' : 'started');
  }

  #sticky(session: string, exclude?: ReadonlySet<string>): Choice {
    const now = this.#now();
    const byIndex = this.#byIndex;
    const usable = exclude?.size
      ? (i: number) => this.#cooled[i] === 0 && !exclude.has((byIndex[i] as GatewayMember).name)
      : this.#cooldown.size
        ? this.#notCooled
        : undefined;
    const member = byIndex[this.#table.lookup(sessionHash(session), usable)] as GatewayMember;
    this.#sweepSessions(now);
    const seen = this.#sessions.get(session);
    if (!seen) {
      this.#sessions.set(session, { member: member.name, expires: now + this.#sessionTtlMs });
      return { member };
    }
    const moved = seen.expires > now && seen.member !== member.name ? seen.member : undefined;
    seen.member = member.name;
    seen.expires = now + this.#sessionTtlMs;
    return moved ? { member, movedFrom: moved } : { member };
  }

  #pick(pool: readonly GatewayMember[]): GatewayMember {
    switch (this.#selection) {
      case 'random':
        return pool[Math.floor(this.#random() * pool.length)] as GatewayMember;
      case 'least-connections': {
        // Ties rotate, so idle members share the first connections evenly.
        const start = this.#next++ % pool.length;
        let best = pool[start] as GatewayMember;
        let least = this.active(best.name);
        for (let i = 1; i < pool.length && least > 0; i++) {
          const m = pool[(start + i) % pool.length] as GatewayMember;
          const n = this.active(m.name);
          if (n < least) {
            best = m;
            least = n;
          }
        }
        return best;
      }
      default:
        return pool[this.#next++ % pool.length] as GatewayMember;
    }
  }

  // O(1) until the earliest cooldown ends, so a choice does not scan the cooldowns.
  #expireCooldowns(): void {
    const now = this.#now();
    if (now < this.#nextExpiry) return;
    let next = Number.POSITIVE_INFINITY;
    const ended: string[] = [];
    for (const [name, c] of this.#cooldown)
      if (c.until <= now) ended.push(name);
      else next = Math.min(next, c.until);
    this.#nextExpiry = next;
    for (const name of ended) this.#cooldown.delete(name);
    if (ended.length) this.#refresh();
    for (const name of ended) this.#onRecover?.(name);
  }

  // Forgotten sessions are dropped at most once per TTL, so a choice stays O(1) in the number of sessions.
  #sweepSessions(now: number): void {
    if (now - this.#lastSweep < this.#sessionTtlMs) return;
    this.#lastSweep = now;
    for (const [s, p] of this.#sessions) if (p.expires <= now) this.#sessions.delete(s);
  }

  #refresh(): void {
    const names = this.#table.names;
    this.#byIndex = names.map((n) => this.#members.get(n) as GatewayMember);
    this.#cooled = Uint8Array.from(names, (n) => (this.#cooldown.has(n) ? 1 : 0));
    this.#eligible = this.#byIndex.filter((_, i) => this.#cooled[i] === 0);
    if (this.#eligible.length && this.#eligibleListeners.size)
      queueMicrotask(() => {
        for (const l of this.#eligibleListeners) l();
      });
  }
}
