import { describe, expect, it } from 'vitest';
import type { ProxyObject } from '../api/proxy.js';
import { gatewayMember, poolMemberStatus } from './pool-member.js';

const proxy = (
  spec: ProxyObject['spec'],
  status: ProxyObject['status'],
  meta: Partial<ProxyObject['metadata']> = {},
): ProxyObject =>
  ({
    apiVersion: 'egress-proxies.dev/v1alpha1',
    kind: 'Proxy',
    metadata: { name: 'p1', ...meta },
    spec,
    status,
  }) as ProxyObject;

describe('gateway members from Proxies', () => {
  it('uses the port the provider allocated (status.port) over spec.port', () => {
    const p = proxy({ provider: 'local', port: 3128 }, { phase: 'Ready', ip: '127.0.0.1', port: 40017 });
    expect(gatewayMember(p)).toEqual({ name: 'p1', host: '127.0.0.1', port: 40017 });
  });

  it('falls back to spec.port, then 3128, when the provider reported none', () => {
    expect(
      gatewayMember(proxy({ provider: 'gcp', port: 8080 }, { phase: 'Ready', ip: '10.0.0.7' }))?.port,
    ).toBe(8080);
    expect(gatewayMember(proxy({ provider: 'gcp' }, { phase: 'Ready', ip: '10.0.0.7' }))?.port).toBe(3128);
  });

  it('leaves out a Proxy that is not Ready, has no address or is being deleted', () => {
    expect(gatewayMember(proxy({ provider: 'gcp' }, { phase: 'Running', ip: '10.0.0.7' }))).toBeUndefined();
    expect(gatewayMember(proxy({ provider: 'gcp' }, { phase: 'Ready' }))).toBeUndefined();
    const deleting = { deletionTimestamp: '2026-12-04T10:00:00Z' };
    expect(
      gatewayMember(proxy({ provider: 'gcp' }, { phase: 'Ready', ip: '10.0.0.7' }, deleting)),
    ).toBeUndefined();
  });
});

describe('a member as its pool lists it', () => {
  it('shows the address the gateway uses: the ip, and status.port before spec.port', () => {
    const p = proxy(
      { provider: 'local', port: 3128 },
      { phase: 'Ready', ip: '127.0.0.5', port: 40017, egressIP: '127.0.0.5' },
      { creationTimestamp: '2026-12-04T10:00:00Z' },
    );
    expect(poolMemberStatus(p, { cooledDown: true })).toEqual({
      name: 'p1',
      provider: 'local',
      ip: '127.0.0.5',
      port: 40017,
      egressIP: '127.0.0.5',
      createdAt: '2026-12-04T10:00:00Z',
      ready: true,
      cooledDown: true,
    });
    expect(
      poolMemberStatus(proxy({ port: 8080 }, { phase: 'Running', ip: '10.0.0.7' }), { cooledDown: false }),
    ).toEqual({
      name: 'p1',
      ip: '10.0.0.7',
      port: 8080,
      ready: false,
      cooledDown: false,
    });
  });

  it('names no port before the member has an address, and takes a given creation time', () => {
    const p = proxy({ provider: 'kvm', port: 3128 }, undefined, {
      creationTimestamp: '2026-12-04T10:00:00Z',
    });
    expect(poolMemberStatus(p, { cooledDown: false, createdAt: '2026-12-04T11:00:00.000Z' })).toEqual({
      name: 'p1',
      provider: 'kvm',
      createdAt: '2026-12-04T11:00:00.000Z',
      ready: false,
      cooledDown: false,
    });
  });

  it('lists the assigned and the seen egress of a member', () => {
    const p = proxy(
      { provider: 'kvm2' },
      {
        phase: 'Ready',
        ip: '10.0.0.7',
        egressIP: '192.0.2.11',
        assignedEgress: { ipv4: '192.0.2.11', ipv6Prefix: '2001:db8::/64' },
      },
    );
    expect(poolMemberStatus(p, { cooledDown: false })).toMatchObject({
      egressIP: '192.0.2.11',
      assignedEgress: { ipv4: '192.0.2.11', ipv6Prefix: '2001:db8::/64' },
    });
  });
});
