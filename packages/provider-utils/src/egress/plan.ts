import { ErrorCode, quotaExceededError } from '@egress-proxies/contract';
import { bitsOf, canonicalAddress, type Family, familyOf, fromBig, parseCidr, toBig } from './addresses.js';

/** One family of a plan as written in a provider config. */
export interface EgressPlanIPv4 {
  /** Addresses to allocate from: `203.0.113.8/29`, `203.0.113.10-203.0.113.14`, `203.0.113.20`. */
  ranges: string[];
  /** The on-link prefix length written on the NIC; defaults to the first CIDR range's. */
  prefixLength?: number | undefined;
  /** The default route's next hop; never allocated. */
  gateway: string;
}

export interface EgressPlanIPv6 {
  /** The prefix to allocate from, e.g. `2001:db8:1::/64`. */
  prefix: string;
  /** The on-link prefix length written on the NIC; defaults to the prefix's. */
  prefixLength?: number | undefined;
  gateway: string;
}

/** An egress plan as written in a provider config (validated by `egressPlanSchema`). */
export interface EgressPlanConfig {
  ipv4?: EgressPlanIPv4 | undefined;
  ipv6?: EgressPlanIPv6 | undefined;
  /** DNS servers written into the instance's network config. */
  nameservers?: string[] | undefined;
  /** Addresses, ranges or CIDRs never allocated (routers, the host itself, reserved ones). */
  exclude?: string[] | undefined;
}

interface Interval {
  lo: bigint;
  hi: bigint;
}

/** One family, compiled: the allocatable addresses as sorted disjoint intervals. */
export interface PlanFamily {
  readonly family: Family;
  readonly intervals: readonly Interval[];
  /** How many addresses can be allocated. */
  readonly size: bigint;
  readonly prefixLength: number;
  readonly gateway: string;
}

/** A validated plan ready to allocate from. */
export interface EgressPlan {
  readonly name: string;
  readonly ipv4?: PlanFamily;
  readonly ipv6?: PlanFamily;
  readonly nameservers: readonly string[];
}

/** One instance's allocation: one address per family the plan has. */
export interface EgressAllocation {
  ipv4?: { address: string; prefixLength: number; gateway: string };
  ipv6?: { address: string; prefixLength: number; gateway: string };
  nameservers: readonly string[];
}

/** `a`, `a/len` or `a-b` as an interval; undefined when it does not parse or mixes families. */
export function parseRange(s: string): { family: Family; lo: bigint; hi: bigint; cidr?: number } | undefined {
  if (typeof s !== 'string') return undefined;
  if (s.includes('/')) {
    const c = parseCidr(s);
    return c && { family: c.family, lo: c.first, hi: c.last, cidr: c.prefix };
  }
  const dash = s.indexOf('-');
  if (dash < 0) {
    const family = familyOf(s);
    if (!family) return undefined;
    const v = toBig(s).value;
    return { family, lo: v, hi: v };
  }
  const a = familyOf(s.slice(0, dash));
  const b = familyOf(s.slice(dash + 1));
  if (!a || a !== b) return undefined;
  const lo = toBig(s.slice(0, dash)).value;
  const hi = toBig(s.slice(dash + 1)).value;
  return lo <= hi ? { family: a, lo, hi } : undefined;
}

function normalise(list: Interval[]): Interval[] {
  const sorted = [...list].sort((x, y) => (x.lo < y.lo ? -1 : x.lo > y.lo ? 1 : 0));
  const out: Interval[] = [];
  for (const i of sorted) {
    const last = out.at(-1);
    if (last && i.lo <= last.hi + 1n) {
      if (i.hi > last.hi) last.hi = i.hi;
    } else out.push({ lo: i.lo, hi: i.hi });
  }
  return out;
}

function subtract(from: Interval[], cut: Interval[]): Interval[] {
  let out = normalise(from);
  for (const c of normalise(cut)) {
    const next: Interval[] = [];
    for (const i of out) {
      if (c.hi < i.lo || c.lo > i.hi) next.push(i);
      else {
        if (i.lo < c.lo) next.push({ lo: i.lo, hi: c.lo - 1n });
        if (i.hi > c.hi) next.push({ lo: c.hi + 1n, hi: i.hi });
      }
    }
    out = next;
  }
  return out;
}

/** The network and broadcast addresses of an IPv4 subnet of /30 or wider (not hosts). */
function v4Edges(first: bigint, prefix: number): Interval[] {
  if (prefix > 30) return [];
  const last = first + (1n << BigInt(32 - prefix)) - 1n;
  return [
    { lo: first, hi: first },
    { lo: last, hi: last },
  ];
}

function compileFamily(
  family: Family,
  ranges: readonly string[],
  prefixLength: number,
  gateway: string,
  exclude: readonly string[],
): PlanFamily {
  const gw = toBig(gateway).value;
  const pool: Interval[] = [];
  const cut: Interval[] = [{ lo: gw, hi: gw }];
  for (const r of ranges) {
    const p = parseRange(r)!;
    pool.push({ lo: p.lo, hi: p.hi });
    // A CIDR's own network and broadcast addresses are not hosts.
    if (family === 4 && p.cidr !== undefined) cut.push(...v4Edges(p.lo, p.cidr));
  }
  const hostBits = BigInt(bitsOf(family) - prefixLength);
  const subnet = (gw >> hostBits) << hostBits;
  // Nor are the on-link subnet's; in IPv6 its first address is the subnet-router anycast.
  if (family === 4) cut.push(...v4Edges(subnet, prefixLength));
  else cut.push({ lo: subnet, hi: subnet });
  for (const e of exclude) {
    const p = parseRange(e);
    if (p?.family === family) cut.push({ lo: p.lo, hi: p.hi });
  }
  const intervals = subtract(pool, cut);
  const size = intervals.reduce((n, i) => n + (i.hi - i.lo + 1n), 0n);
  return { family, intervals, size, prefixLength, gateway: canonicalAddress(gateway) };
}

/** The prefix length a family writes on the NIC: the configured one, else the first CIDR's. */
export function effectivePrefixLength(ranges: readonly string[], configured?: number): number | undefined {
  if (configured !== undefined) return configured;
  for (const r of ranges) {
    const p = parseRange(r);
    if (p?.cidr !== undefined) return p.cidr;
  }
  return undefined;
}

/**
 * Compiles a plan that passed `egressPlanSchema` (which checked everything this assumes: the
 * ranges parse, the gateway is on-link, the prefix length is known).
 */
export function compileEgressPlan(name: string, config: EgressPlanConfig): EgressPlan {
  const exclude = config.exclude ?? [];
  const v4 = config.ipv4;
  const v6 = config.ipv6;
  return {
    name,
    ...(v4
      ? {
          ipv4: compileFamily(
            4,
            v4.ranges,
            effectivePrefixLength(v4.ranges, v4.prefixLength)!,
            v4.gateway,
            exclude,
          ),
        }
      : {}),
    ...(v6
      ? {
          ipv6: compileFamily(
            6,
            [v6.prefix],
            effectivePrefixLength([v6.prefix], v6.prefixLength)!,
            v6.gateway,
            exclude,
          ),
        }
      : {}),
    nameservers: (config.nameservers ?? []).map(canonicalAddress),
  };
}

/** The `index`-th allocatable address of a family (0-based, in address order). */
export function addressAt(f: PlanFamily, index: bigint): string {
  let i = index;
  for (const iv of f.intervals) {
    const n = iv.hi - iv.lo + 1n;
    if (i < n) return fromBig(f.family, iv.lo + i);
    i -= n;
  }
  throw new RangeError(`index ${index} is outside the plan (size ${f.size})`);
}

/** Whether `address` (any spelling) is one the family can allocate. */
export function inPlan(f: PlanFamily, address: string): boolean {
  if (familyOf(address) !== f.family) return false;
  const v = toBig(address).value;
  return f.intervals.some((iv) => v >= iv.lo && v <= iv.hi);
}

/** Every allocatable address of a family, in order (lazily: an IPv6 /64 has 2^64). */
export function* enumerate(f: PlanFamily): Generator<string> {
  for (const iv of f.intervals) for (let v = iv.lo; v <= iv.hi; v += 1n) yield fromBig(f.family, v);
}

/** Where a name's search starts: a hash of name and family, so names spread over the plan. */
function startIndex(name: string, family: Family, size: bigint): bigint {
  const { createHash } = process.getBuiltinModule('node:crypto');
  const digest = createHash('sha256').update(`${family}\u0000${name}`).digest('hex');
  return BigInt(`0x${digest.slice(0, 32)}`) % size;
}

const MAX_HOLDERS_NAMED = 10;

function allocateFamily(
  plan: EgressPlan,
  f: PlanFamily,
  name: string,
  taken: ReadonlyMap<string, string>,
): string {
  // Only holders inside this family's plan can block it; their count bounds the search.
  const held = new Map<string, string>();
  for (const [address, holder] of taken) {
    if (familyOf(address) === f.family && inPlan(f, address)) held.set(canonicalAddress(address), holder);
  }
  if (BigInt(held.size) >= f.size) {
    const holders = [...held.values()].sort();
    const shown = holders.slice(0, MAX_HOLDERS_NAMED).join(', ');
    const more = holders.length > MAX_HOLDERS_NAMED ? ` and ${holders.length - MAX_HOLDERS_NAMED} more` : '';
    throw quotaExceededError(
      `egress plan ${JSON.stringify(plan.name)} has no free IPv${f.family} address: all ${f.size} are held (by ${shown || 'nobody'}${more})`,
      {
        code: ErrorCode.QuotaExceeded,
        details: { plan: plan.name, family: `ipv${f.family}`, size: Number(f.size), held: holders.length },
      },
    );
  }
  const start = startIndex(name, f.family, f.size);
  for (let step = 0n; step < f.size; step += 1n) {
    const address = addressAt(f, (start + step) % f.size);
    if (!held.has(address)) return address;
  }
  // Unreachable: fewer holders than addresses leaves one free.
  throw new Error(`egress plan ${plan.name}: no free address found`);
}

/**
 * Picks one free address per family of the plan for `name`. `taken` maps each address some
 * instance holds (any spelling, any plan) to its holder's name. The same name with the same
 * holders gets the same addresses (a retried create keeps its address when still free); names
 * start their search at a hash, so they spread over the plan rather than piling up at its start.
 * A family with every address held is QuotaExceeded naming the plan, its size and the holders.
 */
export function allocate(
  plan: EgressPlan,
  name: string,
  taken: ReadonlyMap<string, string>,
): EgressAllocation {
  const out: EgressAllocation = { nameservers: plan.nameservers };
  for (const f of [plan.ipv4, plan.ipv6]) {
    if (!f) continue;
    const pick = {
      address: allocateFamily(plan, f, name, taken),
      prefixLength: f.prefixLength,
      gateway: f.gateway,
    };
    if (f.family === 4) out.ipv4 = pick;
    else out.ipv6 = pick;
  }
  return out;
}
