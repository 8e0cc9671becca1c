/** One member's counters, as plain numbers: the data path adds to them without label lookups. */
export class MemberStats {
  http = 0;
  connect = 0;
  active = 0;
  bytesUp = 0;
  bytesDown = 0;
  cooledDown = 0;
  readonly failures = new Map<string, number>();
  readonly cooldowns = new Map<string, number>();
}

const bump = (m: Map<string, number>, key: string) => m.set(key, (m.get(key) ?? 0) + 1);

/**
 * A running gateway's counters per member and its refusals; GatewayMetrics reads them when
 * Prometheus scrapes, so a request costs a few additions instead of prom-client label hashing.
 */
export class GatewayStats {
  readonly members = new Map<string, MemberStats>();
  readonly rejected = new Map<string, number>();

  constructor(readonly pool: string) {}

  member(name: string): MemberStats {
    let s = this.members.get(name);
    if (!s) {
      s = new MemberStats();
      this.members.set(name, s);
    }
    return s;
  }

  failure(member: string, reason: string): void {
    bump(this.member(member).failures, reason);
  }

  cooldown(member: string, reason: string): void {
    bump(this.member(member).cooldowns, reason);
  }

  reject(reason: string): void {
    bump(this.rejected, reason);
  }

  /** Forgets members that left the pool and hold no connection, so rotation does not grow the series forever. */
  prune(current: ReadonlySet<string>): void {
    for (const [name, s] of this.members) if (!current.has(name) && s.active === 0) this.members.delete(name);
  }
}

/** A member's counters as the status page shows them: requests, bytes both ways, failed connections. */
export function memberTotals(s: MemberStats): { requests: number; bytes: number; errors: number } {
  let errors = 0;
  // A client going away is its own choice, not an error the member or its target made.
  for (const [reason, n] of s.failures) if (reason !== 'client-abort') errors += n;
  return { requests: s.http + s.connect, bytes: s.bytesUp + s.bytesDown, errors };
}
