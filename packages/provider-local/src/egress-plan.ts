/**
 * The local provider's egress plan (pure): which host addresses its proxies leave from. The shape
 * matches the hypervisor providers' plans (IPv4 addresses, ranges or CIDRs, an IPv6 prefix,
 * exclusions) so one config reads the same everywhere; it lives here until a shared plan module
 * exists in provider-utils.
 */
import { isIP } from './is-ip.js';

/** The `egress:` block as written. */
export interface EgressPlanInput {
  /** IPv4 host addresses: `a.b.c.d`, a range `a.b.c.d-e.f.g.h`, or a CIDR `a.b.c.d/nn`. */
  ipv4?: string[];
  /** An IPv6 prefix routed to this host; the Node engine picks a random source in it per connection. */
  ipv6Prefix?: string;
  /** IPv4 addresses, ranges or CIDRs never handed out (the host's own, a gateway). */
  exclude?: string[];
}

/** A plan expanded once at config time. */
export interface EgressPlan {
  /** The IPv4 addresses handed out, in plan order, exclusions removed. */
  ipv4: string[];
  /** The IPv6 prefix in canonical form (host bits cleared), when configured. */
  ipv6Prefix?: string;
}

/** More would be a mistake (a /8 typed for a /28): the expansion is kept in memory. */
export const MAX_PLAN_ADDRESSES = 65_536;

const ipv4ToInt = (a: string): number => a.split('.').reduce((n, o) => n * 256 + Number(o), 0);
const intToIpv4 = (n: number): string => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');

/** One IPv4 entry as an inclusive range, or the sentence saying what is wrong with it. */
export function parseIpv4Entry(entry: string): { first: number; last: number } | string {
  const bad = `${JSON.stringify(entry)} is not an IPv4 address, range (a.b.c.d-e.f.g.h) or CIDR (a.b.c.d/nn)`;
  if (typeof entry !== 'string') return bad;
  const dash = entry.indexOf('-');
  if (dash >= 0) {
    const a = entry.slice(0, dash).trim();
    const b = entry.slice(dash + 1).trim();
    if (isIP(a) !== 4 || isIP(b) !== 4) return bad;
    const first = ipv4ToInt(a);
    const last = ipv4ToInt(b);
    if (first > last) return `range ${JSON.stringify(entry)} ends before it starts`;
    return { first, last };
  }
  const slash = entry.indexOf('/');
  if (slash >= 0) {
    const a = entry.slice(0, slash);
    const len = entry.slice(slash + 1);
    if (isIP(a) !== 4 || !/^\d{1,2}$/.test(len) || Number(len) > 32) return bad;
    const size = 2 ** (32 - Number(len));
    const base = ipv4ToInt(a) - (ipv4ToInt(a) % size);
    // The network and broadcast addresses of a /30 or wider block are not host addresses.
    return size >= 4 ? { first: base + 1, last: base + size - 2 } : { first: base, last: base + size - 1 };
  }
  return isIP(entry) === 4 ? { first: ipv4ToInt(entry), last: ipv4ToInt(entry) } : bad;
}

/** `prefix` with its host bits cleared, or the sentence saying what is wrong with it. */
export function canonicalIpv6Prefix(prefix: string): string | string[] {
  const bad = `${JSON.stringify(prefix)} is not an IPv6 prefix (for example 2001:db8:1::/64)`;
  if (typeof prefix !== 'string') return [bad];
  const slash = prefix.indexOf('/');
  if (slash < 0) return [bad];
  const addr = prefix.slice(0, slash);
  const len = prefix.slice(slash + 1);
  if (isIP(addr) !== 6 || !/^\d{1,3}$/.test(len) || Number(len) > 128 || Number(len) < 1) return [bad];
  const bits = Number(len);
  const value = ipv6ToBigInt(addr) & (((1n << BigInt(bits)) - 1n) << BigInt(128 - bits));
  return `${bigIntToIpv6(value)}/${bits}`;
}

/** The 128-bit value of an IPv6 address (no zone, no embedded IPv4). */
export function ipv6ToBigInt(addr: string): bigint {
  const [head = '', tail] = addr.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((n, g) => (n << 16n) | BigInt(Number.parseInt(g, 16)), 0n);
}

export function bigIntToIpv6(value: bigint): string {
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((value >> BigInt(i * 16)) & 0xffffn).toString(16));
  // Node prints the compressed form; normalise through URL, which compresses per RFC 5952.
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

/** Whether `addr` (IPv6) lies inside `prefix` (canonical `addr/len`). */
export function ipv6InPrefix(addr: string, prefix: string): boolean {
  const [net = '', len = '0'] = prefix.split('/');
  if (isIP(addr) !== 6 || isIP(net) !== 6) return false;
  const shift = BigInt(128 - Number(len));
  return ipv6ToBigInt(addr) >> shift === ipv6ToBigInt(net) >> shift;
}

/**
 * Expands and checks a plan; returns the plan or the issues, each naming the bad value and
 * where it is (`ipv4[2]`), so the config error points at it.
 */
export function buildEgressPlan(
  input: EgressPlanInput,
): { ok: true; plan: EgressPlan } | { ok: false; issues: { path: (string | number)[]; message: string }[] } {
  const issues: { path: (string | number)[]; message: string }[] = [];
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
  const total = include.reduce((n, r) => n + r.last - r.first + 1, 0);
  if (total > MAX_PLAN_ADDRESSES) {
    issues.push({
      path: ['ipv4'],
      message: `the ipv4 entries cover ${total} addresses; at most ${MAX_PLAN_ADDRESSES} are supported`,
    });
  }
  if (issues.length > 0) return { ok: false, issues };
  const excluded = (n: number) => exclude.some((r) => n >= r.first && n <= r.last);
  const seen = new Set<number>();
  const ipv4: string[] = [];
  for (const r of include) {
    for (let n = r.first; n <= r.last; n++) {
      if (seen.has(n) || excluded(n)) continue;
      seen.add(n);
      ipv4.push(intToIpv4(n));
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

/** A short description of a plan for errors: what it holds and how big it is. */
export function describePlan(plan: EgressPlan): string {
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

/** The first planned IPv4 address no live instance holds (pure). */
export function freePlannedIpv4(plan: EgressPlan, held: ReadonlySet<string>): string | undefined {
  return plan.ipv4.find((a) => !held.has(a));
}
