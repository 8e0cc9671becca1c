import { ErrorCode, ErrorKind, type ProviderError } from '@egress-proxies/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/config-error.js';
import { canonicalAddress, fromBig, toBig } from './addresses.js';
import { macAddressFor, networkConfigV2 } from './network-config.js';
import { addressAt, allocate, compileEgressPlan, type EgressPlanConfig, enumerate, inPlan } from './plan.js';
import { egressPlanSchema } from './plan-schema.js';

const plan = (config: unknown, name = 'office') =>
  compileEgressPlan(name, parseConfig(egressPlanSchema, config, { type: 'test' }));

/** The config error's lines, or [] when the plan is valid. */
function issues(config: unknown): string[] {
  try {
    parseConfig(egressPlanSchema, config, { type: 'kvm' });
    return [];
  } catch (err) {
    const e = err as ProviderError;
    expect(e.kind).toBe(ErrorKind.Permanent);
    expect(e.code).toBe(ErrorCode.InvalidConfig);
    return e.reason.split('\n').slice(1);
  }
}

const slash29 = { ipv4: { ranges: ['203.0.113.8/29'], gateway: '203.0.113.9' } };

describe('addresses', () => {
  it('round-trips every IPv4 and IPv6 value through its canonical text', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 32n) - 1n }), (v) => {
        expect(toBig(fromBig(4, v))).toEqual({ family: 4, value: v });
      }),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), (v) => {
        const text = fromBig(6, v);
        expect(toBig(text)).toEqual({ family: 6, value: v });
        // What node:net's own parser accepts, so the text is a literal every tool reads.
        expect(process.getBuiltinModule('node:net').isIPv6(text)).toBe(true);
      }),
    );
  });

  it('writes IPv6 as RFC 5952 does', () => {
    expect(canonicalAddress('2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1');
    expect(canonicalAddress('2001:db8:0:1:0:0:0:1')).toBe('2001:db8:0:1::1');
    expect(canonicalAddress('2001:db8:0:1:1:1:1:1')).toBe('2001:db8:0:1:1:1:1:1');
    expect(canonicalAddress('::ffff:192.0.2.1')).toBe('::ffff:c000:201');
    expect(canonicalAddress('::')).toBe('::');
  });
});

describe('egress plan: validation', () => {
  it('accepts a /29 with its gateway and fills the defaults', () => {
    expect(parseConfig(egressPlanSchema, slash29, { type: 'kvm' })).toEqual({
      ...slash29,
      nameservers: [],
      exclude: [],
    });
  });

  it('names each bad value and what was expected', () => {
    expect(issues({})).toEqual([
      'kvm: a plan needs ipv4 (ranges and gateway), ipv6 (prefix and gateway), or both',
    ]);
    expect(
      issues({
        ipv4: { ranges: ['203.0.113.300/29', '2001:db8::1'], gateway: 'router' },
        nameservers: ['dns.example'],
        exclude: ['203.0.113.9-203.0.113.1'],
      }),
    ).toEqual([
      'kvm.ipv4.ranges[0]: "203.0.113.300/29" is not an IPv4 address, range (first-last) or CIDR (address/prefix), for example 203.0.113.8/29 or 203.0.113.10-203.0.113.14',
      'kvm.ipv4.ranges[1]: "2001:db8::1" is not an IPv4 address, range (first-last) or CIDR (address/prefix), for example 203.0.113.8/29 or 203.0.113.10-203.0.113.14',
      'kvm.ipv4.gateway: "router" is not an IPv4 address',
      'kvm.nameservers[0]: "dns.example" is not an IPv4 or IPv6 address',
      'kvm.exclude[0]: "203.0.113.9-203.0.113.1" is not an address, range (first-last) or CIDR (address/prefix)',
    ]);
    expect(issues({ ipv6: { prefix: '2001:db8:1::1', gateway: '2001:db8:1::1' } })).toEqual([
      'kvm.ipv6.prefix: "2001:db8:1::1" is not an IPv6 prefix (address/length, for example 2001:db8:1::/64)',
    ]);
  });

  it('needs the prefix length when no range is a CIDR', () => {
    expect(issues({ ipv4: { ranges: ['203.0.113.10-203.0.113.14'], gateway: '203.0.113.9' } })).toEqual([
      'kvm.ipv4.prefixLength: required when no range is a CIDR (the prefix length written on the NIC, for example 29)',
    ]);
    expect(
      issues({ ipv4: { ranges: ['203.0.113.10-203.0.113.14'], prefixLength: 29, gateway: '203.0.113.9' } }),
    ).toEqual([]);
  });

  it('refuses ranges off the gateway subnet, and an on-link prefix longer than the IPv6 prefix', () => {
    expect(issues({ ipv4: { ranges: ['198.51.100.0/29'], gateway: '203.0.113.9' } })).toEqual([
      'kvm.ipv4.ranges[0]: "198.51.100.0/29" is outside the on-link subnet 203.0.113.8/29 of gateway 203.0.113.9; the ranges, the gateway and the prefix length must agree',
    ]);
    expect(
      issues({ ipv6: { prefix: '2001:db8:1::/64', prefixLength: 96, gateway: '2001:db8:1::1' } }),
    ).toContain(
      'kvm.ipv6.prefixLength: 96 is longer than the prefix 2001:db8:1::/64; the on-link prefix must contain it',
    );
  });

  it('refuses a plan that leaves nothing to allocate', () => {
    expect(
      issues({ ipv4: { ranges: ['203.0.113.8/30'], gateway: '203.0.113.9' }, exclude: ['203.0.113.10'] }),
    ).toEqual([
      'kvm.ipv4: leaves no IPv4 address to allocate once the gateway, network, broadcast and exclusions are taken out',
    ]);
  });
});

describe('egress plan: enumeration', () => {
  it('a /29 gives its six hosts minus the gateway; exclusions and ranges combine', () => {
    expect([...enumerate(plan(slash29).ipv4!)]).toEqual([
      '203.0.113.10',
      '203.0.113.11',
      '203.0.113.12',
      '203.0.113.13',
      '203.0.113.14',
    ]);
    const p = plan({
      ipv4: {
        ranges: ['203.0.113.10-203.0.113.12', '203.0.113.20'],
        prefixLength: 24,
        gateway: '203.0.113.1',
      },
      exclude: ['203.0.113.11', '2001:db8::1'],
    });
    expect([...enumerate(p.ipv4!)]).toEqual(['203.0.113.10', '203.0.113.12', '203.0.113.20']);
    expect(p.ipv4!.size).toBe(3n);
  });

  it('an IPv6 /64 has 2^64 - 2 addresses (not its first, the anycast, nor the gateway)', () => {
    const p = plan({ ipv6: { prefix: '2001:db8:1::/64', gateway: '2001:db8:1::1' } });
    expect(p.ipv6!.size).toBe((1n << 64n) - 2n);
    expect(addressAt(p.ipv6!, 0n)).toBe('2001:db8:1::2');
    expect(inPlan(p.ipv6!, '2001:DB8:1:0::ffff')).toBe(true);
    expect(inPlan(p.ipv6!, '2001:db8:2::5')).toBe(false);
  });
});

const arbPlan: fc.Arbitrary<EgressPlanConfig> = fc
  .record({
    prefix: fc.integer({ min: 24, max: 29 }),
    net: fc.integer({ min: 0, max: 255 }),
    excluded: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 6 }),
  })
  .map(({ prefix, net, excluded }) => {
    const size = 2 ** (32 - prefix);
    const base = Math.floor(net / size) * size;
    return {
      ipv4: { ranges: [`10.7.0.${base}/${prefix}`], gateway: `10.7.0.${base + 1}` },
      exclude: excluded.map((e) => `10.7.0.${base + (e % size)}`),
    };
  });

describe('egress plan: allocation', () => {
  it('allocating until exhaustion hands out every address once, never an excluded one', () => {
    fc.assert(
      fc.property(
        arbPlan,
        fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), { minLength: 1, maxLength: 80 }),
        (config, names) => {
          const p = compileEgressPlan('prop', config);
          const all = new Set(enumerate(p.ipv4!));
          const taken = new Map<string, string>();
          for (const name of names) {
            if (BigInt(taken.size) === p.ipv4!.size) {
              expect(() => allocate(p, name, taken)).toThrow(/no free IPv4 address/);
              continue;
            }
            const a = allocate(p, name, taken).ipv4!.address;
            expect(all.has(a)).toBe(true);
            expect(taken.has(a)).toBe(false);
            expect(config.exclude).not.toContain(a);
            expect(a).not.toBe(config.ipv4!.gateway);
            taken.set(a, name);
          }
          expect(taken.size).toBe(Math.min(names.length, all.size));
        },
      ),
    );
  });

  it('the same name and holders get the same address; holders elsewhere do not move it', () => {
    fc.assert(
      fc.property(arbPlan, fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), (config, name) => {
        const p = compileEgressPlan('prop', config);
        const first = allocate(p, name, new Map());
        expect(allocate(p, name, new Map())).toEqual(first);
        expect(allocate(p, name, new Map([['192.0.2.1', 'elsewhere']]))).toEqual(first);
      }),
    );
  });

  it('spreads names over the plan instead of filling it from the start', () => {
    const p = plan({ ipv4: { ranges: ['10.8.0.0/24'], gateway: '10.8.0.1' } });
    const picks = new Set(
      Array.from({ length: 20 }, (_, i) => allocate(p, `proxy-${i}`, new Map()).ipv4!.address),
    );
    // Twenty names all starting at the first address would all pick 10.8.0.2.
    expect(picks.size).toBeGreaterThan(10);
  });

  it('reads taken addresses in any spelling', () => {
    const p = plan({ ipv6: { prefix: '2001:db8:1::/126', prefixLength: 64, gateway: '2001:db8:1::1' } });
    // Free: ::2 and ::3.
    const taken = new Map([['2001:DB8:1:0:0:0:0:2', 'proxy-a']]);
    expect(allocate(p, 'proxy-b', taken).ipv6!.address).toBe('2001:db8:1::3');
  });

  it('exhaustion is QuotaExceeded naming the plan, its size and the holders', () => {
    const p = plan({ ipv4: { ranges: ['203.0.113.8/30'], gateway: '203.0.113.9' } });
    let err: ProviderError | undefined;
    try {
      allocate(p, 'proxy-c', new Map([['203.0.113.10', 'proxy-a']]));
    } catch (e) {
      err = e as ProviderError;
    }
    expect(err?.kind).toBe(ErrorKind.QuotaExceeded);
    expect(err?.reason).toBe('egress plan "office" has no free IPv4 address: all 1 are held (by proxy-a)');
    expect(err?.details).toEqual({ plan: 'office', family: 'ipv4', size: 1, held: 1 });
  });

  it('one address per family, with the gateways and DNS servers', () => {
    const p = plan({
      ipv4: { ranges: ['203.0.113.8/29'], gateway: '203.0.113.9' },
      ipv6: { prefix: '2001:db8:1::/64', gateway: '2001:db8:1::1' },
      nameservers: ['2001:4860:4860:0:0:0:0:8888', '192.0.2.53'],
    });
    const a = allocate(p, 'proxy-a', new Map());
    expect(a.ipv4).toMatchObject({ prefixLength: 29, gateway: '203.0.113.9' });
    expect(a.ipv6).toMatchObject({ prefixLength: 64, gateway: '2001:db8:1::1' });
    expect(a.nameservers).toEqual(['2001:4860:4860::8888', '192.0.2.53']);
  });
});

describe('network config', () => {
  it('a MAC per name: locally administered 52:54:00, stable, moved off a taken one', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (name) => {
        const mac = macAddressFor(name);
        expect(mac).toMatch(/^52:54:00(:[0-9a-f]{2}){3}$/);
        expect(macAddressFor(name)).toBe(mac);
        const other = macAddressFor(name, new Set([mac.toUpperCase()]));
        expect(other).not.toBe(mac);
        expect(other).toMatch(/^52:54:00(:[0-9a-f]{2}){3}$/);
      }),
    );
  });

  it('puts the allocation on the NIC matched by MAC, with a default route per family', async () => {
    const p = plan({
      ipv4: { ranges: ['203.0.113.10'], prefixLength: 29, gateway: '203.0.113.9' },
      ipv6: { prefix: '2001:db8:1::/126', prefixLength: 64, gateway: '2001:db8:1::1' },
      nameservers: ['192.0.2.53'],
    });
    const text = networkConfigV2(
      '52:54:00:AB:CD:EF',
      allocate(p, 'proxy-a', new Map([['2001:db8:1::2', 'x']])),
    );
    const { parse } = await import('yaml');
    expect(parse(text)).toEqual({
      version: 2,
      ethernets: {
        eth0: {
          match: { macaddress: '52:54:00:ab:cd:ef' },
          'set-name': 'eth0',
          dhcp4: false,
          dhcp6: false,
          'accept-ra': false,
          addresses: ['203.0.113.10/29', '2001:db8:1::3/64'],
          // Gateways, not routes: cloud-init's ifupdown renderer drops default routes.
          gateway4: '203.0.113.9',
          gateway6: '2001:db8:1::1',
          nameservers: { addresses: ['192.0.2.53'] },
        },
      },
    });
  });

  it('an IPv6-only plan keeps DHCP for IPv4, so the instance stays reachable on the LAN', async () => {
    const p = plan({ ipv6: { prefix: '2001:db8:1::/64', gateway: '2001:db8:1::1' } });
    const { parse } = await import('yaml');
    const eth0 = parse(networkConfigV2(macAddressFor('x'), allocate(p, 'x', new Map()))).ethernets.eth0;
    expect(eth0.dhcp4).toBe(true);
    expect(eth0.gateway6).toBe('2001:db8:1::1');
    expect(eth0.gateway4).toBeUndefined();
    expect(eth0.routes).toBeUndefined();
  });
});
