import { profileProblems } from '@egress-proxies/contract';
import { ProviderRegistry } from '@egress-proxies/provider-utils';
import { describe, expect, it } from 'vitest';
import { proxmoxProfile, proxmoxProviderFactory } from './index.js';

const config = {
  url: 'https://pve1.example:8006',
  tokenFile: '/nonexistent/token',
  nodes: ['pve1'],
  isoStorage: 'local',
  templates: { debian: 9000 },
  machineTypes: { small: { cores: 1, memoryMiB: 512 } },
};

describe('package surface', () => {
  it('the profile passes the contract check', () => {
    expect(profileProblems(proxmoxProfile)).toEqual([]);
  });

  it('the factory registers under proxmox, carries the configured name and makes no request', async () => {
    const reg = new ProviderRegistry().register(proxmoxProviderFactory);
    const { provider, checker } = reg.create('proxmox', config, { name: 'home' });
    expect([provider.name, provider.type]).toEqual(['home', 'proxmox']);
    expect(checker).toBe(provider);
    await provider.close?.();
    await provider.close?.(); // twice is safe
  });
});
