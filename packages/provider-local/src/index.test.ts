import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProviderRegistry, parseProviderConfig, profileProblems } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { createLocalProvider, LOCAL_PROFILE, localProviderFactory } from './index.js';

describe('the package entry', () => {
  it('declares a complete profile', () => {
    expect(profileProblems(LOCAL_PROFILE)).toEqual([]);
  });

  it('registers as type local and carries the configured name', () => {
    const registry = new ProviderRegistry().register(localProviderFactory);
    const stateDir = join(tmpdir(), 'never-created-by-construction');
    const config = parseProviderConfig('local', { stateDir });
    const { provider, checker } = registry.create('local', config, { name: 'my-local' });
    expect(provider.name).toBe('my-local');
    expect(provider.type).toBe('local');
    expect(checker).toBe(provider);
    // Construction touches nothing on the host.
    expect(existsSync(stateDir)).toBe(false);
  });

  it('fills the defaults of a minimal block', () => {
    const { provider } = createLocalProvider({ stateDir: '/var/lib/x' });
    expect(provider.config).toMatchObject({
      bindAddress: '127.0.0.1',
      portRange: { min: 40000, max: 40999 },
      engine: 'auto',
      allowedSourceCIDRs: ['127.0.0.0/8', '::1/128'],
    });
  });
});
