/**
 * An egress plan for one machine's own addresses (the local provider): host addresses its
 * proxies bind to, one each, and an IPv6 prefix routed to the host to rotate sources in. No
 * gateway or on-link prefix: nothing is configured on a NIC, the addresses are already the
 * host's. Entries are parsed by the same `parseRange` and `parseCidr` as the hypervisors' plans,
 * so `203.0.113.8/29` or `a-b` means the same addresses in every provider config.
 */
import { canonicalAddress, familyOf, fromBig, parseCidr, toBig } from './addresses.js';
import { parseRange } from './plan.js';

/** The `egress:` block as written. */
export interface HostEgressPlanInput {
  /** IPv4 host addresses: `a.b.c.d`, a range `a.b.c.d-e.f.g.h`, or a CIDR `a.b.c.d/nn`. */
  ipv4?: string[];
  /** An IPv6 prefix routed to this host; the Node engine picks a random source in it per connection. */
  ipv6Prefix?: string;
  /** IPv4 addresses, ranges or CIDRs never handed out (the host's own, a gateway). */
  exclude?: string[];
}

/** A host plan expanded once at config time. */
export interface HostEgressPlan {
  /** The IPv4 addresses handed out, in plan order, exclusions removed. */
  ipv4: string[];
  /** The IPv6 prefix in canonical form (host bits cleared), when configured. */
  ipv6Prefix?: string;
}

export interface HostPlanIssue {
  path: (string | number)[];
  message: string;
}

/** More would be a mistake (a /8 typed for a /28): the expansion is kept in memory. */
export const MAX_HOST_PLAN_ADDRESSES = 65_536;

/** One IPv4 entry as an inclusive range, or the sentence saying what is wrong with it. */
export function parseIpv4Entry(entry: string): { first: bigint; last: bigint } | string {
  const bad = `${JSON.stringify(entry)} is not an IPv4 address, range (a.b.c.d-e.f.g.h) or CIDR (a.b.c.d/nn)`;
  if (typeof entry !== 'string') return bad;
  const dash = entry.indexOf('-');
  const text = dash >= 0 ? `${entry.slice(0, dash).trim()}-${entry.slice(dash + 1).trim()}` : entry;
  const r = parseRange(text);
  if (!r) {
    // parseRange refuses a reversed range like any other; say which it is.
    const [a = '', b = ''] = text.split('-');
    if (dash >= 0 && familyOf(a) === 4 && familyOf(b) === 4)
      return `range ${JSON.stringify(entry)} ends before it starts`;
    return bad;
  }
  if (r.family !== 4) return bad;
  // The network and broadcast addresses of a /30 or wider block are not host addresses.
  if (r.cidr !== undefined && r.cidr <= 30) return { first: r.lo + 1n, last: r.hi - 1n };
  return { first: r.lo, last: r.hi };
}

/** `prefix` with its host bits cleared, or the sentence saying what is wrong with it (in an array). */
export function canonicalIpv6Prefix(prefix: string): string | string[] {
  const bad = `${JSON.stringify(prefix)} is not an IPv6 prefix (for example 2001:db8:1::/64)`;
  const c = typeof prefix === 'string' ? parseCidr(prefix) : undefined;
  if (c?.family !== 6 || c.prefix < 1) return [bad];
  return `${fromBig(6, c.first)}/${c.prefix}`;
}

/** Whether `addr` (IPv6) lies inside `prefix` (`addr/len`). */
export function ipv6InPrefix(addr: string, prefix: string): boolean {
  const c = parseCidr(prefix);
  if (familyOf(addr) !== 6 || c?.family !== 6) return false;
  const v = toBig(addr).value;
  return v >= c.first && v <= c.last;
}

/**
 * Expands and checks a host plan; returns the plan or the issues, each naming the bad value and
 * where it is (`ipv4[2]`), so the config error points at it.
 */
export function buildHostEgressPlan(
  input: HostEgressPlanInput,
): { ok: true; plan: HostEgressPlan } | { ok: false; issues: HostPlanIssue[] } {
  const issues: HostPlanIssue[] = [];
  const ranges = (list: readonly string[] | undefined, key: string) =>
    (list ?? []).flatMap((entry, i) => {
      const r = parseIpv4Entry(entry);
      if (typeof r === 'string') {
        issues.push({ path: [key, i], message: r });
        return [];
      }
      return [r];
    });
  const include = ranges(input.ipv4, 'ipv4');
  const exclude = ranges(input.exclude, 'exclude');
  let ipv6Prefix: string | undefined;
  if (input.ipv6Prefix !== undefined) {
    const p = canonicalIpv6Prefix(input.ipv6Prefix);
    if (Array.isArray(p)) issues.push({ path: ['ipv6Prefix'], message: p[0] as string });
    else ipv6Prefix = p;
  }
  if ((input.ipv4 ?? []).length === 0 && input.ipv6Prefix === undefined) {
    issues.push({ path: [], message: 'an egress plan needs ipv4 addresses, an ipv6Prefix, or both' });
  }
  const total = include.reduce((n, r) => n + r.last - r.first + 1n, 0n);
  if (total > BigInt(MAX_HOST_PLAN_ADDRESSES)) {
    issues.push({
      path: ['ipv4'],
      message: `the ipv4 entries cover ${total} addresses; at most ${MAX_HOST_PLAN_ADDRESSES} are supported`,
    });
  }
  if (issues.length > 0) return { ok: false, issues };
  const excluded = (n: bigint) => exclude.some((r) => n >= r.first && n <= r.last);
  const seen = new Set<bigint>();
  const ipv4: string[] = [];
  for (const r of include) {
    for (let n = r.first; n <= r.last; n++) {
      if (seen.has(n) || excluded(n)) continue;
      seen.add(n);
      ipv4.push(fromBig(4, n));
    }
  }
  if ((input.ipv4 ?? []).length > 0 && ipv4.length === 0) {
    return {
      ok: false,
      issues: [{ path: ['exclude'], message: 'the exclusions remove every ipv4 address' }],
    };
  }
  return { ok: true, plan: { ipv4, ...(ipv6Prefix ? { ipv6Prefix } : {}) } };
}

/** A short description of a host plan for errors: what it holds and how big it is. */
export function describeHostPlan(plan: HostEgressPlan): string {
  const parts: string[] = [];
  if (plan.ipv4.length > 0) {
    const first = plan.ipv4[0];
    const last = plan.ipv4[plan.ipv4.length - 1];
    parts.push(
      `${plan.ipv4.length} IPv4 address${plan.ipv4.length === 1 ? '' : 'es'} (${first}${first === last ? '' : ` .. ${last}`})`,
    );
  }
  if (plan.ipv6Prefix) parts.push(`IPv6 prefix ${plan.ipv6Prefix}`);
  return parts.join(' and ');
}

/** The first planned IPv4 address no live instance holds (any spelling of it). */
export function freeHostAddress(plan: HostEgressPlan, held: ReadonlySet<string>): string | undefined {
  const canonical = new Set([...held].filter((a) => familyOf(a) !== undefined).map(canonicalAddress));
  return plan.ipv4.find((a) => !canonical.has(a));
}
