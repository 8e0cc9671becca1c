import { describe, expect, it } from 'vitest';
import { inIpv6Prefix, verifyEgress } from './egress-verify.js';

describe('verifyEgress', () => {
  it('is undefined without an assignment', () => {
    expect(verifyEgress(undefined, ['203.0.113.9'])).toBeUndefined();
    expect(verifyEgress({}, ['203.0.113.9'])).toBeUndefined();
  });

  it('reads a dual-stack view of an IPv4 peer as the IPv4 address', () => {
    expect(verifyEgress({ ipv4: '192.0.2.7' }, ['::ffff:192.0.2.7'])?.status).toBe('True');
  });

  it('names the unprobed family when only one of two was seen', () => {
    expect(verifyEgress({ ipv4: '192.0.2.7', ipv6: '2001:db8::7' }, ['192.0.2.7'])).toEqual({
      status: 'True',
      reason: 'EgressPartlyVerified',
      message:
        'the probe target saw 192.0.2.7 as planned; not probed: IPv6 2001:db8::7 (set spec.probe.targetIPv6 to an IPv6-only echo to probe it separately)',
    });
  });

  it('is False for an IPv4 address seen where only an IPv6 prefix is planned', () => {
    expect(verifyEgress({ ipv6Prefix: '2001:db8:1::/64' }, ['198.51.100.1'])).toMatchObject({
      status: 'False',
      message:
        'the probe target saw 198.51.100.1, planned no IPv4 address (only an address in 2001:db8:1::/64)',
    });
  });

  it('is Unknown when the target echoes nothing', () => {
    expect(verifyEgress({ ipv4: '192.0.2.7' }, [undefined])?.reason).toBe('EgressNotEchoed');
  });

  it('compares IPv6 addresses by value and prefixes by their bits', () => {
    expect(verifyEgress({ ipv6: '2001:db8::7' }, ['2001:0db8:0:0::7'])?.status).toBe('True');
    expect(inIpv6Prefix('2001:db8:1:ffff::1', '2001:db8:1::/48')).toBe(true);
    expect(inIpv6Prefix('2001:db8:2::1', '2001:db8:1::/48')).toBe(false);
  });
});
