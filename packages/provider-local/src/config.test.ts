import { ErrorCode, ProviderError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { LOCAL_DEFAULTS, resolveConfig } from './config.js';

/** The `local.<path>: <message>` lines of the config error a bad block throws. */
function lines(block: unknown): string[] {
  try {
    resolveConfig(block as never, 'dev');
  } catch (err) {
    if (!ProviderError.isInstance(err)) throw err;
    expect(err.code).toBe(ErrorCode.InvalidConfig);
    return err.reason.split('\n').slice(1);
  }
  throw new Error('expected the block to be rejected');
}

describe('the local: block', () => {
  it('fills its defaults, copied for every parse', () => {
    const a = resolveConfig({ stateDir: '/var/lib/ep' });
    expect(a).toEqual({ stateDir: '/var/lib/ep', ...LOCAL_DEFAULTS });
    a.allowedSourceCIDRs.push('10.0.0.0/8');
    expect(resolveConfig({ stateDir: '/b' }).allowedSourceCIDRs).toEqual(['127.0.0.0/8', '::1/128']);
  });

  it('names a typo with a did-you-mean, a wrong type and an out-of-range value', () => {
    expect(lines({ stateDir: '/s', portRang: {} })).toEqual([
      'local.portRang: unknown key "portRang" (did you mean "portRange"?) (known: stateDir, bindAddress, portRange, squidPath, engine, allowedSourceCIDRs, loopbackEgress, egress)',
    ]);
    expect(lines({ stateDir: '/s', bindAddress: 42 })).toEqual([
      'local.bindAddress: expected string, got number 42',
    ]);
    expect(lines({ stateDir: '/s', portRange: { min: 0, max: 70000 } })).toEqual([
      'local.portRange.min: must be >= 1, got 0',
      'local.portRange.max: must be <= 65535, got 70000',
    ]);
  });

  it('reports a portRange upside down and a bad bind address together', () => {
    expect(lines({ stateDir: '/s', portRange: { min: 5000, max: 4000 }, bindAddress: 'localhost' })).toEqual([
      'local.bindAddress: "localhost" is not an IPv4 or IPv6 address',
      'local.portRange: min 5000 must be <= max 4000',
    ]);
  });

  it('refuses an engine outside the enum, a relative squidPath and a missing stateDir', () => {
    expect(lines({ stateDir: '/s', engine: 'nginx' })).toEqual([
      'local.engine: must be one of "auto", "squid", "node", got "nginx"',
    ]);
    expect(lines({ stateDir: '/s', squidPath: 'squid' })).toEqual([
      'local.squidPath: "squid" is not an absolute path to the squid binary',
    ]);
    expect(lines({})).toEqual(['local.stateDir: required']);
    expect(lines({ stateDir: '/s', allowedSourceCIDRs: ['10.0.0.0/33', '::1/128', '::1/128'] })).toEqual([
      'local.allowedSourceCIDRs[0]: "10.0.0.0/33" is not a CIDR (address/prefix, for example 10.0.0.0/8)',
      'local.allowedSourceCIDRs[2]: duplicate CIDR "::1/128" (first at [1])',
    ]);
  });

  it('checks the egress plan, naming each bad entry, and refuses combinations that cannot work', () => {
    expect(lines({ stateDir: '/s', egress: { ipv4: ['192.0.2.1', 'nope'] } })).toEqual([
      'local.egress.ipv4[1]: "nope" is not an IPv4 address, range (a.b.c.d-e.f.g.h) or CIDR (a.b.c.d/nn)',
    ]);
    expect(
      lines({
        stateDir: '/s',
        loopbackEgress: true,
        engine: 'squid',
        egress: { ipv6Prefix: '2001:db8::/64' },
      }),
    ).toEqual([
      'local.egress: loopbackEgress and egress both pick the outgoing address; set one of them',
      'local.engine: egress.ipv6Prefix rotates the source address per connection, which only the node engine does; use engine node or auto',
    ]);
    expect(resolveConfig({ stateDir: '/s', egress: { ipv6Prefix: '2001:db8::/64' } }).egress).toEqual({
      ipv6Prefix: '2001:db8::/64',
    });
  });
});
