import type { InstanceEgress } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { Driver, newProxy, referenceHandle } from '../../../test/support/reconcile-fixture.js';
import { getCondition } from './conditions.js';
import type { ProbeRequest } from './types.js';

const probe = { target: 'http://echo.test/ip', interval: '30s', timeout: '2s', retries: 0 };

/** The reference provider, its get reporting `egress` as a provider with an egress plan does. */
function withEgress(egress: InstanceEgress | undefined) {
  const { handle } = referenceHandle();
  const inner = handle.provider;
  const provider = new Proxy(inner, {
    get(target, key) {
      if (key === 'get')
        return async (...args: Parameters<typeof inner.get>) => ({
          ...(await inner.get(...args)),
          ...(egress ? { egress } : {}),
        });
      const v = Reflect.get(target, key, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { ...handle, provider };
}

/** A probe fake whose echo answers per target: what a dual-stack proxy shows two echo services. */
function echoes(d: Driver, seen: Record<string, string>) {
  d.probe = async (req: ProbeRequest) => {
    d.probes.push(req);
    return { ok: true, latencyMs: 3, egressIP: seen[req.target] as string };
  };
}

describe('Proxy status: assigned egress and EgressVerified', () => {
  it('copies the assignment into the status and verifies it against what the target saw', async () => {
    const d = new Driver(newProxy({ probe }), [withEgress({ ipv4: '203.0.113.9' })]);
    await d.until('Ready');
    expect(d.proxy.status?.assignedEgress).toEqual({ ipv4: '203.0.113.9' });
    expect(getCondition(d.proxy.status?.conditions, 'EgressVerified')).toMatchObject({
      status: 'True',
      reason: 'EgressVerified',
      message: 'the probe target saw 203.0.113.9, as planned',
    });
  });

  it('is False naming what was seen and what was planned when the upstream is misrouted', async () => {
    const d = new Driver(newProxy({ probe }), [withEgress({ ipv4: '192.0.2.50' })]);
    await d.until('Ready');
    expect(getCondition(d.proxy.status?.conditions, 'EgressVerified')).toMatchObject({
      status: 'False',
      reason: 'EgressMismatch',
      message: 'the probe target saw 203.0.113.9, planned 192.0.2.50',
    });
    expect(d.events.filter((e) => e.reason === 'EgressMismatch')).toHaveLength(1);
  });

  it('shows no condition and no assignment when the provider assigns nothing', async () => {
    const d = new Driver(newProxy({ probe }), [withEgress(undefined)]);
    await d.until('Ready');
    expect(d.proxy.status?.assignedEgress).toBeUndefined();
    expect(getCondition(d.proxy.status?.conditions, 'EgressVerified')).toBeUndefined();
  });

  it('probes IPv4 and IPv6 separately when both are assigned, checking the IPv6 one is inside the prefix', async () => {
    const spec = { probe: { ...probe, targetIPv6: 'http://echo6.test/ip' } };
    const assigned = { ipv4: '203.0.113.9', ipv6Prefix: '2001:db8:1::/64' };
    const good = new Driver(newProxy(spec), [withEgress(assigned)]);
    echoes(good, { [probe.target]: '203.0.113.9', 'http://echo6.test/ip': '2001:db8:1:0:5a1e::7' });
    await good.until('Ready');
    expect(good.probes.map((p) => p.target)).toEqual([probe.target, 'http://echo6.test/ip']);
    expect(getCondition(good.proxy.status?.conditions, 'EgressVerified')).toMatchObject({
      status: 'True',
      reason: 'EgressVerified',
      message: 'the probe target saw 203.0.113.9 and 2001:db8:1:0:5a1e::7, as planned',
    });

    const bad = new Driver(newProxy(spec), [withEgress(assigned)]);
    echoes(bad, { [probe.target]: '203.0.113.9', 'http://echo6.test/ip': '2001:db8:2::7' });
    await bad.until('Ready');
    expect(getCondition(bad.proxy.status?.conditions, 'EgressVerified')).toMatchObject({
      status: 'False',
      message: 'the probe target saw 2001:db8:2::7, planned an address in 2001:db8:1::/64',
    });
  });
});
