import { profileProblems } from '@egress-proxies/contract';
import { KVM2_METADATA_NAMESPACE } from '@egress-proxies/kvm-common';
import { ProviderRegistry } from '@egress-proxies/provider-utils';
import { describe, expect, it } from 'vitest';
import { createKvm2Provider, kvm2Profile, kvm2ProviderFactory } from './index.js';
import { kvm2Flavour } from './internal/index.js';

const block = {
  sshKeyFile: '/nonexistent/key',
  knownHostsFile: '/nonexistent/known_hosts',
  machineTypes: { small: { vcpus: 1, memoryMiB: 512 } },
  hosts: [{ name: 'h1', address: 'h1.lan:22', user: 'virt', bridge: 'br0' }],
};

describe('provider-kvm2', () => {
  it('declares a complete profile with listable secondary resources', () => {
    expect(profileProblems(kvm2Profile)).toEqual([]);
    expect(kvm2Profile.secondaryResources).toBe('explicit-listable');
  });
  it('uses the kvm2 namespace and asks the guest agent first', () => {
    expect(kvm2Flavour.namespace).toBe(KVM2_METADATA_NAMESPACE);
    expect(kvm2Flavour.addressOrder[0]).toBe('agent');
  });
  it('registers as type kvm2 and carries the configured name', () => {
    const registry = new ProviderRegistry().register(kvm2ProviderFactory);
    const { provider, checker } = registry.create('kvm2', block, { name: 'kvm2-home' });
    expect(provider.type).toBe('kvm2');
    expect(provider.name).toBe('kvm2-home');
    expect(checker).toBe(provider);
  });
  it('names a bad field under kvm2', () => {
    const bad = { ...block, hosts: [{ name: 'h1', address: 'h1.lan:22', user: 'virt', bridge: '' }] };
    expect(() => createKvm2Provider(bad, { name: 'x' })).toThrow(/kvm2\.hosts\[0\]\.bridge/);
  });
});
