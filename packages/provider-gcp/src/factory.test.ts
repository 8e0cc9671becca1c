import { ProviderRegistry } from '@egress-proxies/provider-utils';
import { describe, expect, it } from 'vitest';
import { gcpProviderFactory } from './factory.js';
import { gcpProfile } from './profile.js';
import { createGcpProvider } from './provider.js';

describe('gcpProviderFactory', () => {
  it('registers as type gcp and builds a provider that is also its checker', () => {
    const registry = new ProviderRegistry().register(gcpProviderFactory);
    const { provider, checker } = registry.create('gcp', { project: 'my-project' }, { name: 'gcp-eu' });
    expect(provider.name).toBe('gcp-eu');
    expect(provider.type).toBe('gcp');
    expect(provider.profile).toBe(gcpProfile);
    expect(checker).toBe(provider);
  });

  it('refuses a bad config naming the entry and the key', () => {
    expect(() =>
      createGcpProvider({ project: 'my-project', ipMode: 'nat' as never }, { name: 'gcp-eu' }),
    ).toThrow(/^gcp-eu configure: invalid gcp config \(1 issue\)\ngcp\.ipMode: /);
  });

  it('refuses an endpoint that is not an http(s) URL', () => {
    expect(() =>
      createGcpProvider({ project: 'my-project' }, { endpoint: 'compute.googleapis.com' }),
    ).toThrow(/endpoint "compute.googleapis.com" is not an http\(s\) URL/);
  });

  it('declares every state the state table produces and nothing else', () => {
    expect([...gcpProfile.states].sort()).toEqual(['Provisioning', 'Running', 'Stopped', 'Terminated']);
  });
});

describe('close', () => {
  it('is safe twice; later calls are Permanent PROVIDER_CLOSED without any request', async () => {
    const calls: string[] = [];
    const methods = [
      'getInstance',
      'insertInstance',
      'deleteInstance',
      'aggregatedListInstances',
      'getRegion',
    ];
    const api = Object.fromEntries(
      methods.map((m) => [
        m,
        async () => {
          calls.push(m);
          return {};
        },
      ]),
    ) as never;
    const p = createGcpProvider({ project: 'my-project' }, { name: 'gcp-eu', api });
    await p.close?.();
    await p.close?.();
    await expect(p.listByTag()).rejects.toMatchObject({
      kind: 'Permanent',
      code: 'PROVIDER_CLOSED',
      provider: 'gcp-eu',
    });
    await expect(p.get('zones/us-east1-b/instances/proxy-1')).rejects.toMatchObject({
      code: 'PROVIDER_CLOSED',
    });
    await expect(p.check()).rejects.toMatchObject({ kind: 'Permanent', code: 'PROVIDER_CLOSED' });
    expect(calls).toEqual([]);
    // The same seam does answer before close: the empty list above is not for lack of wiring.
    const q = createGcpProvider({ project: 'my-project' }, { api });
    await q.listByTag();
    expect(calls).toEqual(['aggregatedListInstances']);
  });
});

describe('an injected ComputeApi', () => {
  it('may be a class instance: prototype methods are called through the observing wrapper', async () => {
    class Api {
      calls = 0;
      async aggregatedListInstances() {
        this.calls += 1;
        return { items: {} };
      }
    }
    const api = new Api();
    const p = createGcpProvider({ project: 'my-project' }, { api: api as never });
    expect(await p.listByTag()).toEqual([]);
    expect(api.calls).toBe(1);
  });
});
