import { isPermanent, type ProviderError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { parseProxmoxConfig } from './config.js';

const base = {
  url: 'https://pve1.example:8006',
  tokenFile: '/etc/token',
  nodes: ['pve1'],
  isoStorage: 'local',
  templates: { debian: 9000 },
  machineTypes: { small: { cores: 1, memoryMiB: 512 } },
};

const bad = (patch: Record<string, unknown>): ProviderError => {
  try {
    parseProxmoxConfig({ ...base, ...patch });
  } catch (e) {
    return e as ProviderError;
  }
  throw new Error('accepted');
};

describe('parseProxmoxConfig', () => {
  it('fills the defaults', () => {
    const c = parseProxmoxConfig(base);
    expect(c).toMatchObject({
      vmidRange: { min: 100_000, max: 199_999 },
      requestTimeoutSeconds: 30,
      installGuestAgent: true,
      insecureSkipTLSVerify: false,
      maxParallelClonesPerNode: 2,
    });
  });

  it.each([
    [{ url: 'http://pve1:8006' }, 'url'],
    [{ url: 'https://pve1:8006/api2/json?x=1' }, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{ nodes: ['pve 1'] }, 'proxmox.nodes[0]'],
    [{ nodes: ['../etc'] }, 'proxmox.nodes[0]'],
    [{ nodes: [] }, 'nodes'],
    [{ nodes: ['a', 'a'] }, 'nodes'],
    [{ isoStorage: 'lo/cal' }, 'isoStorage'],
    [{ isoStorage: undefined }, 'isoStorage'],
    [{ vlanTag: 4095 }, 'vlanTag'],
    [{ vmidRange: { min: 99, max: 1000 } }, 'proxmox.vmidRange.min'],
    [{ vmidRange: { min: 200, max: 100 } }, 'vmidRange'],
    [{ requestTimeoutSeconds: 0 }, 'requestTimeoutSeconds'],
    [{ templates: {} }, 'templates'],
    [{ templates: { debian: 50 } }, 'templates.debian'],
    [{ machineTypes: { small: { cores: 0, memoryMiB: 512 } } }, 'machineTypes.small.cores'],
    [{ bridge: 'vmbr0; rm' }, 'bridge'],
    [{ extra: 1 }, 'proxmox.extra: unknown key "extra"'],
  ])('rejects %j naming %s', (patch, field) => {
    const e = bad(patch);
    expect(isPermanent(e)).toBe(true);
    expect(e.code).toBe('INVALID_CONFIG');
    expect(e.message).toContain(field);
  });
});
