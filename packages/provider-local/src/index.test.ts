import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { profileProblems } from '@egress-proxies/contract';
import { ProviderRegistry, parseConfig } from '@egress-proxies/provider-utils';
import { describe, expect, it } from 'vitest';
import { createLocalProvider, localConfigSchema, localProfile, localProviderFactory } from './index.js';

describe('the package entry', () => {
  it('declares a complete profile', () => {
    expect(profileProblems(localProfile)).toEqual([]);
  });

  it('registers as type local and carries the configured name', () => {
    const registry = new ProviderRegistry().register(localProviderFactory);
    const stateDir = join(tmpdir(), 'never-created-by-construction');
    const config = parseConfig(localConfigSchema, { stateDir }, { type: 'local' });
    const { provider, checker } = registry.create('local', config, { name: 'my-local' });
    expect(provider.name).toBe('my-local');
    expect(provider.type).toBe('local');
    expect(checker).toBe(provider);
    // Construction touches nothing on the host.
    expect(existsSync(stateDir)).toBe(false);
  });

  it('fills the defaults of a minimal block', () => {
    const provider = createLocalProvider({ stateDir: '/var/lib/x' });
    expect(provider.config).toMatchObject({
      bindAddress: '127.0.0.1',
      portRange: { min: 40000, max: 40999 },
      engine: 'auto',
      allowedSourceCIDRs: ['127.0.0.0/8', '::1/128'],
    });
  });

  it('refuses every call after close with PROVIDER_CLOSED, the Checker included', async () => {
    const provider = createLocalProvider({ stateDir: join(tmpdir(), 'never-created-by-close') });
    await provider.close();
    for (const call of [() => provider.listByTag(), () => provider.check(), () => provider.get('local/x')]) {
      await expect(call()).rejects.toMatchObject({ kind: 'Permanent', code: 'PROVIDER_CLOSED' });
    }
  });
});
