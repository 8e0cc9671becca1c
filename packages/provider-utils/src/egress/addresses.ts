/**
 * IP addresses as numbers: egress plans do interval arithmetic on them (ranges, exclusions,
 * the n-th free address), which strings cannot do. IPv4 and IPv6 share `bigint` so one
 * allocator serves both families.
 */

export type Family = 4 | 6;

/** node:net's isIP, fetched on use: importing the package loads no networking module. */
const isIP = (s: string): number => process.getBuiltinModule('node:net').isIP(s);

/** The family of a literal address (no zone, no prefix), or undefined. */
export function familyOf(s: string): Family | undefined {
  if (typeof s !== 'string' || s.includes('%')) return undefined;
  const f = isIP(s);
  return f === 4 || f === 6 ? f : undefined;
}

export const bitsOf = (family: Family): number => (family === 4 ? 32 : 128);

function v4ToBig(s: string): bigint {
  return s.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

/** Expands `::` and an embedded dotted quad into eight 16-bit groups. */
function v6ToBig(s: string): bigint {
  let text = s.toLowerCase();
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v = v4ToBig(tail);
    text = `${text.slice(0, lastColon + 1)}${(v >> 16n).toString(16)}:${(v & 0xffffn).toString(16)}`;
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = rest ? rest.split(':') : [];
  const groups =
    rest === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(Number.parseInt(g, 16)), 0n);
}

/** The address as a number; throws on anything that is not a literal of either family. */
export function toBig(s: string): { family: Family; value: bigint } {
  const family = familyOf(s);
  if (!family) throw new TypeError(`${JSON.stringify(s)} is not an IP address`);
  return { family, value: family === 4 ? v4ToBig(s) : v6ToBig(s) };
}

/** The canonical text: dotted quad, or RFC 5952 (lower case, the longest zero run as `::`). */
export function fromBig(family: Family, value: bigint): string {
  if (family === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => ((value >> shift) & 0xffn).toString()).join('.');
  }
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j += 1;
    // RFC 5952: a single zero group is not compressed; the first of equal runs wins.
    if (j - i > bestLen && j - i > 1) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

/** The canonical text of a literal address (so `2001:DB8:0::1` and `2001:db8::1` compare equal). */
export function canonicalAddress(s: string): string {
  const { family, value } = toBig(s);
  return fromBig(family, value);
}

/** A CIDR's first and last address; undefined unless `addr/len` fits its family. */
export function parseCidr(
  s: string,
): { family: Family; first: bigint; last: bigint; prefix: number } | undefined {
  if (typeof s !== 'string') return undefined;
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const family = familyOf(s.slice(0, slash));
  const len = s.slice(slash + 1);
  if (!family || !/^\d{1,3}$/.test(len) || Number(len) > bitsOf(family)) return undefined;
  const prefix = Number(len);
  const hostBits = BigInt(bitsOf(family) - prefix);
  const first = (toBig(s.slice(0, slash)).value >> hostBits) << hostBits;
  return { family, first, last: first + (1n << hostBits) - 1n, prefix };
}

/** Whether `value` lies in the subnet of `base` with `prefix` bits. */
export function sameSubnet(family: Family, a: bigint, b: bigint, prefix: number): boolean {
  const hostBits = BigInt(bitsOf(family) - prefix);
  return a >> hostBits === b >> hostBits;
}
