/**
 * Compares the egress address the probe target saw with the one the provider assigned (pure):
 * a misrouted upstream (the proxy leaving through the host's shared address) is the failure this
 * catches, so the verdict names both what was seen and what was planned.
 */
import { isIP } from 'node:net';
import type { InstanceEgress } from '@egress-proxies/contract';

export const EGRESS_VERIFIED = 'EgressVerified';

export interface EgressVerdict {
  status: 'True' | 'False' | 'Unknown';
  reason: 'EgressVerified' | 'EgressPartlyVerified' | 'EgressMismatch' | 'EgressNotEchoed';
  message: string;
}

/** `::ffff:a.b.c.d` (a dual-stack socket's view of an IPv4 peer) as `a.b.c.d`. */
export function plainAddress(a: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  return m ? (m[1] as string) : a;
}

function ipv6Value(addr: string): bigint {
  const [head = '', tail] = addr.toLowerCase().split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((n, g) => (n << 16n) | BigInt(Number.parseInt(g, 16)), 0n);
}

/** Whether the IPv6 address `addr` lies inside `prefix` (`addr/len`). */
export function inIpv6Prefix(addr: string, prefix: string): boolean {
  const [net = '', len = ''] = prefix.split('/');
  if (isIP(addr) !== 6 || isIP(net) !== 6 || !/^\d{1,3}$/.test(len) || Number(len) > 128) return false;
  const shift = BigInt(128 - Number(len));
  return ipv6Value(addr) >> shift === ipv6Value(net) >> shift;
}

const sameIpv6 = (a: string, b: string) => isIP(a) === 6 && isIP(b) === 6 && ipv6Value(a) === ipv6Value(b);

/** What the plan says for IPv6, in words. */
function plannedIpv6(e: InstanceEgress): string {
  return [e.ipv6, e.ipv6Prefix && `an address in ${e.ipv6Prefix}`].filter(Boolean).join(' or ');
}

/**
 * The verdict for the addresses the probes saw (one per probed family), or undefined when the
 * provider assigned nothing (the condition is then not shown at all).
 */
export function verifyEgress(
  assigned: InstanceEgress | undefined,
  seenRaw: readonly (string | undefined)[],
): EgressVerdict | undefined {
  if (!assigned || (!assigned.ipv4 && !assigned.ipv6 && !assigned.ipv6Prefix)) return undefined;
  const seen = seenRaw.filter((s): s is string => typeof s === 'string' && s !== '').map(plainAddress);
  const planned = [assigned.ipv4, assigned.ipv6 || assigned.ipv6Prefix ? plannedIpv6(assigned) : undefined]
    .filter(Boolean)
    .join(' and ');
  if (seen.length === 0) {
    return {
      status: 'Unknown',
      reason: 'EgressNotEchoed',
      message: `the probe target did not echo the caller's address, so the planned egress ${planned} is not verified; use a target that answers with it`,
    };
  }
  const verified = new Set<4 | 6>();
  for (const s of seen) {
    const family = isIP(s);
    if (family === 4) {
      if (assigned.ipv4 !== s) {
        return {
          status: 'False',
          reason: 'EgressMismatch',
          message: `the probe target saw ${s}, planned ${assigned.ipv4 ?? `no IPv4 address (only ${planned})`}`,
        };
      }
      verified.add(4);
    } else if (family === 6) {
      const ok =
        (assigned.ipv6 !== undefined && sameIpv6(s, assigned.ipv6)) ||
        (assigned.ipv6Prefix !== undefined && inIpv6Prefix(s, assigned.ipv6Prefix));
      if (!ok) {
        return {
          status: 'False',
          reason: 'EgressMismatch',
          message: `the probe target saw ${s}, planned ${assigned.ipv6 || assigned.ipv6Prefix ? plannedIpv6(assigned) : `no IPv6 address (only ${planned})`}`,
        };
      }
      verified.add(6);
    }
  }
  const missing: string[] = [];
  if (assigned.ipv4 && !verified.has(4)) missing.push(`IPv4 ${assigned.ipv4}`);
  if ((assigned.ipv6 || assigned.ipv6Prefix) && !verified.has(6))
    missing.push(`IPv6 ${plannedIpv6(assigned)}`);
  const seenText = seen.join(' and ');
  if (missing.length > 0) {
    return {
      status: 'True',
      reason: 'EgressPartlyVerified',
      message: `the probe target saw ${seenText} as planned; not probed: ${missing.join(', ')} (set spec.probe.targetIPv6 to an IPv6-only echo to probe it separately)`,
    };
  }
  return {
    status: 'True',
    reason: 'EgressVerified',
    message: `the probe target saw ${seenText}, as planned`,
  };
}
