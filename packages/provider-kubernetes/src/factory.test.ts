import { ProviderRegistry } from '@egress-proxies/provider-utils';
import { describe, expect, it } from 'vitest';
import { parseKubernetesConfig } from './config.js';
import { kubernetesProviderFactory } from './factory.js';
import { kubernetesProfile } from './profile.js';

describe('kubernetesProviderFactory', () => {
  it('registers under type kubernetes and builds a provider carrying the configured name, without a call', () => {
    const registry = new ProviderRegistry().register(kubernetesProviderFactory);
    const bundle = registry.create(
      'kubernetes',
      { namespacePolicy: 'fixed', namespace: 'proxies' },
      { name: 'cluster-a' },
    );
    expect(bundle.provider.name).toBe('cluster-a');
    expect(bundle.provider.type).toBe('kubernetes');
    expect(bundle.provider.profile).toBe(kubernetesProfile);
    expect(bundle.checker).toBe(bundle.provider);
  });

  it('takes the block the providers-file loader produced, defaults filled', () => {
    const block = parseKubernetesConfig({ allowedSourceCIDRs: ['10.1.0.0/16'] });
    const { provider } = kubernetesProviderFactory.create(block, { name: 'k' });
    expect((provider as unknown as { config: typeof block }).config).toEqual(block);
    expect(block.allowedSourceCIDRs).toEqual(['10.1.0.0/16']);
    expect(block.image).toBe('ubuntu/squid:6.6-24.04_beta');
  });
});
