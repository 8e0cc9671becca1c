import { memberHash, rendezvousPick } from './rendezvous.js';

/** One pool member the gateway may route through: a Ready Proxy's endpoint. */
export interface GatewayMember {
  name: string;
  host: string;
  port: number;
}

export type Selection = 'round-robin' | 'random' | 'least-connections';
export const SELECTIONS: readonly Selection[] = ['round-robin', 'random', 'least-connections'];

export interface MemberTableOptions {
  selection?: Selection;
  /** How long a session stays pinned after its last use. */
  sessionTtlMs?: number;
  /** How long a member whose connect failed, or that answered a ban status, gets no new traffic. */
  cooldownMs?: number;
  now?: () => number;
  random?: () => number;
  /** Called once when a member enters cooldown (metrics, status, `rotation.onBan`). */
  onCooldown?: (member: string, reason: string) => void;
}

/** What a choice returned: the member, and for a session the member it had before (when it moved). */
export interface Choice {
  member: GatewayMember;
  movedFrom?: string;
}

interface Pin {
  member: string;
  expires: number;
}

/**
 * The members and everything the gateway decides about them: which are eligible (present and
 * not cooled down), who gets the next connection, where a session is pinned, how many
 * connections each holds.
 */
export class MemberTable {
  readonly #opts: Required<Omit<MemberTableOptions, 'onCooldown'>> & Pick<MemberTableOptions, 'onCooldown'>;
  #members = new Map<string, GatewayMember>();
  #eligible: GatewayMember[] = [];
  #eligibleHashes: number[] = [];
  #eligibleByName = new Map<string, GatewayMember>();
  #active = new Map<string, number>();
  #cooldown = new Map<string, { until: number; reason: string }>();
  #pins = new Map<string, Pin>();
  #next = 0;
  #lastSweep = 0;

  constructor(opts: MemberTableOptions = {}) {
    this.#opts = {
      selection: opts.selection ?? 'round-robin',
      sessionTtlMs: opts.sessionTtlMs ?? 10 * 60_000,
      cooldownMs: opts.cooldownMs ?? 60_000,
      now: opts.now ?? Date.now,
      random: opts.random ?? Math.random,
      ...(opts.onCooldown ? { onCooldown: opts.onCooldown } : {}),
    };
  }

  /** Replaces the member set (the Ready members of the pool, as the store reports them). */
  setMembers(members: readonly GatewayMember[]): void {
    this.#members = new Map(members.map((m) => [m.name, m]));
    for (const name of this.#cooldown.keys()) if (!this.#members.has(name)) this.#cooldown.delete(name);
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
  cooledDown(): { member: string; until: number; reason: string }[] {
    this.#expireCooldowns();
    return [...this.#cooldown.entries()].map(([member, c]) => ({ member, ...c }));
  }

  active(member: string): number {
    return this.#active.get(member) ?? 0;
  }

  /** Picks a member for a new connection; `exclude` skips members that just failed this connection. */
  choose(session?: string, exclude?: ReadonlySet<string>): Choice | undefined {
    const now = this.#opts.now();
    let pool = this.eligible();
    if (exclude?.size) pool = pool.filter((m) => !exclude.has(m.name));
    if (pool.length === 0) return undefined;
    if (session !== undefined) return this.#sticky(session, pool, now);
    return { member: this.#pick(pool) };
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
    if (!this.#members.has(member)) return;
    const fresh = !this.#cooldown.has(member);
    this.#cooldown.set(member, { until: this.#opts.now() + this.#opts.cooldownMs, reason });
    this.#refresh();
    if (fresh) this.#opts.onCooldown?.(member, reason);
  }

  #sticky(session: string, pool: readonly GatewayMember[], now: number): Choice {
    this.#sweepPins(now);
    const pin = this.#pins.get(session);
    // A pinned member is looked up by name (O(1)), not searched for among the members.
    const candidate = pin && pin.expires > now ? this.#eligibleByName.get(pin.member) : undefined;
    const pinned = candidate && (pool === this.#eligible || pool.includes(candidate)) ? candidate : undefined;
    const hashes = pool === this.#eligible ? this.#eligibleHashes : undefined;
    const member = pinned ?? (rendezvousPick(session, pool, hashes) as GatewayMember);
    this.#pins.set(session, { member: member.name, expires: now + this.#opts.sessionTtlMs });
    const moved = pin && pin.expires > now && pin.member !== member.name ? pin.member : undefined;
    return moved ? { member, movedFrom: moved } : { member };
  }

  #pick(pool: readonly GatewayMember[]): GatewayMember {
    switch (this.#opts.selection) {
      case 'random':
        return pool[Math.floor(this.#opts.random() * pool.length)] as GatewayMember;
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

  #expireCooldowns(): void {
    if (this.#cooldown.size === 0) return;
    const now = this.#opts.now();
    let changed = false;
    for (const [name, c] of this.#cooldown)
      if (c.until <= now) {
        this.#cooldown.delete(name);
        changed = true;
      }
    if (changed) this.#refresh();
  }

  // Expired pins are dropped at most once per TTL, so a choice stays O(1) in the number of sessions.
  #sweepPins(now: number): void {
    if (now - this.#lastSweep < this.#opts.sessionTtlMs) return;
    this.#lastSweep = now;
    for (const [s, p] of this.#pins) if (p.expires <= now) this.#pins.delete(s);
  }

  #refresh(): void {
    this.#eligible = [...this.#members.values()]
      .filter((m) => !this.#cooldown.has(m.name))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    this.#eligibleHashes = this.#eligible.map((m) => memberHash(m.name));
    this.#eligibleByName = new Map(this.#eligible.map((m) => [m.name, m]));
  }
}
