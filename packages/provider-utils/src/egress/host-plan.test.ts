import { describe, expect, it } from 'vitest';
import {
  buildHostEgressPlan,
  canonicalIpv6Prefix,
  describeHostPlan,
  freeHostAddress,
  ipv6InPrefix,
  parseIpv4Entry,
} from './host-plan.js';
import { compileEgressPlan, enumerate } from './plan.js';

// The local provider's plan: host addresses and a prefix to rotate in, parsed by the same range
// and CIDR code as the hypervisors' plans.
describe('host egress plan', () => {
  it('expands addresses, ranges and CIDRs in order, without duplicates or exclusions', () => {
    const built = buildHostEgressPlan({
      ipv4: ['192.0.2.9', '198.51.100.0/29', '203.0.113.250-203.0.113.252', '192.0.2.9'],
      exclude: ['198.51.100.1', '203.0.113.251'],
    });
    expect(built).toEqual({
      ok: true,
      plan: {
        ipv4: [
          '192.0.2.9',
          '198.51.100.2',
          '198.51.100.3',
          '198.51.100.4',
          '198.51.100.5',
          '198.51.100.6',
          '203.0.113.250',
          '203.0.113.252',
        ],
      },
    });
  });

  it('keeps every address of a /31 or /32 (no network or broadcast address there)', () => {
    expect(parseIpv4Entry('192.0.2.4/31')).toEqual(parseIpv4Entry('192.0.2.4-192.0.2.5'));
    expect(parseIpv4Entry('192.0.2.4/32')).toEqual(parseIpv4Entry('192.0.2.4'));
  });

  it('names each bad entry and where it is', () => {
    const built = buildHostEgressPlan({
      ipv4: ['192.0.2.1', '192.0.2.300', '192.0.2.9-192.0.2.2'],
      ipv6Prefix: '2001:db8::',
    });
    expect(built.ok).toBe(false);
    expect(!built.ok && built.issues).toEqual([
      {
        path: ['ipv4', 1],
        message: '"192.0.2.300" is not an IPv4 address, range (a.b.c.d-e.f.g.h) or CIDR (a.b.c.d/nn)',
      },
      { path: ['ipv4', 2], message: 'range "192.0.2.9-192.0.2.2" ends before it starts' },
      { path: ['ipv6Prefix'], message: '"2001:db8::" is not an IPv6 prefix (for example 2001:db8:1::/64)' },
    ]);
    expect(buildHostEgressPlan({}).ok).toBe(false);
    expect(buildHostEgressPlan({ ipv4: ['10.0.0.0/8'] })).toMatchObject({
      ok: false,
      issues: [{ message: 'the ipv4 entries cover 16777214 addresses; at most 65536 are supported' }],
    });
    expect(buildHostEgressPlan({ ipv4: ['192.0.2.1'], exclude: ['192.0.2.0/24'] })).toMatchObject({
      ok: false,
      issues: [{ path: ['exclude'] }],
    });
  });

  it('canonicalises an IPv6 prefix and tells addresses inside it from others', () => {
    expect(canonicalIpv6Prefix('2001:DB8:1:0:ffff::1/64')).toBe('2001:db8:1::/64');
    expect(buildHostEgressPlan({ ipv6Prefix: '2001:db8:1::5/64' })).toEqual({
      ok: true,
      plan: { ipv4: [], ipv6Prefix: '2001:db8:1::/64' },
    });
    expect(ipv6InPrefix('2001:db8:1::abcd:1', '2001:db8:1::/64')).toBe(true);
    expect(ipv6InPrefix('2001:db8:2::1', '2001:db8:1::/64')).toBe(false);
    expect(ipv6InPrefix('192.0.2.1', '2001:db8:1::/64')).toBe(false);
  });

  it('hands out the first address nobody holds, and describes the plan for errors', () => {
    const built = buildHostEgressPlan({ ipv4: ['192.0.2.10-192.0.2.12'], ipv6Prefix: '2001:db8::/48' });
    if (!built.ok) throw new Error('plan rejected');
    expect(freeHostAddress(built.plan, new Set(['192.0.2.10']))).toBe('192.0.2.11');
    expect(freeHostAddress(built.plan, new Set(built.plan.ipv4))).toBeUndefined();
    expect(describeHostPlan(built.plan)).toBe(
      '3 IPv4 addresses (192.0.2.10 .. 192.0.2.12) and IPv6 prefix 2001:db8::/48',
    );
  });

  it('reads an entry as a hypervisor plan reads it: one parser for every provider config', () => {
    const ranges = ['198.51.100.8/29', '198.51.100.20-198.51.100.21', '198.51.100.30'];
    const host = buildHostEgressPlan({ ipv4: ranges });
    // The gateway and the on-link edges lie outside the ranges, so both keep the same hosts.
    const hv = compileEgressPlan('p', { ipv4: { ranges, prefixLength: 24, gateway: '198.51.100.1' } });
    expect(host.ok && host.plan.ipv4).toEqual([...enumerate(hv.ipv4!)]);
    expect(parseIpv4Entry(' 198.51.100.20 - 198.51.100.21')).toEqual(
      parseIpv4Entry('198.51.100.20-198.51.100.21'),
    );
    expect(parseIpv4Entry('2001:db8::/64')).toMatch(/is not an IPv4 address/);
  });
});
