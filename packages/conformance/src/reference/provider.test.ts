import { type CreateRequest, InstanceState, isPermanent } from '@egress-proxies/contract';
import { createLogger, type LogLine, ProviderRegistry } from '@egress-proxies/provider-utils';
import { describe, expect, it } from 'vitest';
import { ReferenceBackend } from './backend.js';
import { createReference, referenceProviderFactory } from './factory.js';
import { referenceConfig } from './harness.js';
import { mapState } from './state.js';

const request = (overrides: Partial<CreateRequest> = {}): CreateRequest => ({
  name: 'proxy-0123456789abcdef',
  namespace: 'ns',
  uid: 'uid-1',
  port: 3128,
  cloudInit: '#cloud-config\n',
  placement: { zone: 'alpha', machineType: 'small', image: 'debian-12' },
  ...overrides,
});

describe('ReferenceProvider', () => {
  it('registers as type "reference" and works over its own in-memory backend', async () => {
    const registry = new ProviderRegistry().register(referenceProviderFactory);
    const { provider, checker } = registry.create('reference', referenceConfig('tok'), { name: 'demo' });
    const id = await provider.create(request());
    expect(id).toBe('hosts/alpha/domains/proxy-0123456789abcdef');
    const inst = await provider.get(id);
    expect(inst).toMatchObject({ id, uid: 'uid-1', state: InstanceState.Running });
    expect((await checker!.check()).map((r) => r.reason)).toEqual(['Ready', 'Ready', 'Ready']);
    await provider.delete(id);
    expect(await provider.listByTag()).toEqual([]);
  });

  it('needs a zone when it has more than one host', async () => {
    const { provider } = createReference('demo', referenceConfig('tok'));
    const err = await provider
      .create(request({ placement: { machineType: 'small', image: 'debian-12' } }))
      .catch((e) => e);
    expect(isPermanent(err)).toBe(true);
    expect(String(err.message)).toMatch(/placement\.zone is required with 3 hosts/);
  });

  it('keeps a leftover volume whose instance exists again, and deletes a true leftover', async () => {
    const backend = new ReferenceBackend({
      hosts: ['alpha', 'beta', 'gamma'].map((name) => ({ name, token: 'tok' })),
    });
    const { provider } = createReference('demo', referenceConfig('tok'), backend);
    backend.failNext('define', 1, 'INTERNAL');
    await expect(provider.create(request())).rejects.toMatchObject({ kind: 'Transient' });
    const leftovers = await provider.listSecondary();
    expect(leftovers.map((r) => r.kind).sort()).toEqual(['overlay', 'seed']);
    await provider.create(request());
    await provider.deleteSecondary(leftovers[0]!.id);
    expect(backend.volumes().filter((v) => v.owner)).toHaveLength(2);
    await provider.delete('hosts/alpha/domains/proxy-0123456789abcdef');
    expect(backend.volumes().filter((v) => v.owner)).toHaveLength(0);
  });

  it('logs outcomes and backend calls at V1 and the placement at V2, never the cloud-init or the token', async () => {
    const lines: LogLine[] = [];
    const logger = createLogger({ verbosity: 2, sink: (l) => lines.push(l) });
    const { provider } = createReference('demo', referenceConfig('sekrit-token'));
    await provider.create(request({ cloudInit: '#cloud-config\npassword: hunter2\n' }), { logger });
    const v1 = lines.filter((l) => l.level === 1).map((l) => l.msg);
    expect(v1.filter((m) => m !== 'reference backend call')).toEqual(['reference instance ensured running']);
    expect(lines.filter((l) => l.level === 2).map((l) => l.msg)).toEqual(['reference create resolved']);
    expect(lines.some((l) => l.msg === 'reference backend call' && l.step === 'define')).toBe(true);
    expect(lines.find((l) => l.msg === 'reference create resolved')?.placement).toEqual(request().placement);
    const text = JSON.stringify(lines);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('sekrit-token');
    expect(lines.every((l) => l.provider === 'demo')).toBe(true);
  });

  it('maps domain states as its state table says', () => {
    expect(mapState('nostate', '192.0.2.1')).toBe(InstanceState.Provisioning);
    expect(mapState('running', undefined)).toBe(InstanceState.Provisioning);
    expect(mapState('blocked', '192.0.2.1')).toBe(InstanceState.Running);
    expect(mapState('pmsuspended', '192.0.2.1')).toBe(InstanceState.Stopped);
  });
});
