import { describe, expect, it } from 'vitest';
import type { ProxyObject } from '../api/proxy.js';
import { gatewayMember } from './cluster-pool.js';

const proxy = (spec: ProxyObject['spec'], status: ProxyObject['status']): ProxyObject =>
  ({
    apiVersion: 'egress-proxies.dev/v1alpha1',
    kind: 'Proxy',
    metadata: { name: 'p1' },
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

  it('leaves out a Proxy that is not Ready or has no address', () => {
    expect(gatewayMember(proxy({ provider: 'gcp' }, { phase: 'Running', ip: '10.0.0.7' }))).toBeUndefined();
    expect(gatewayMember(proxy({ provider: 'gcp' }, { phase: 'Ready' }))).toBeUndefined();
  });
});
