import { profileProblems } from '@egress-proxies/contract';
import { KVM_METADATA_NAMESPACE } from '@egress-proxies/kvm-common';
import { ProviderRegistry } from '@egress-proxies/provider-utils';
import { describe, expect, it } from 'vitest';
import { createKvmProvider, kvmProfile, kvmProviderFactory } from './index.js';
import { kvmFlavour } from './internal/index.js';

const block = {
  sshKeyFile: '/nonexistent/key',
  knownHostsFile: '/nonexistent/known_hosts',
  machineTypes: { small: { vcpus: 1, memoryMiB: 512 } },
  hosts: [{ name: 'h1', address: 'h1.lan:22', user: 'virt', bridge: 'br0' }],
};

describe('provider-kvm', () => {
  it('declares a complete profile with listable secondary resources', () => {
    expect(profileProblems(kvmProfile)).toEqual([]);
    expect(kvmProfile.secondaryResources).toBe('explicit-listable');
  });
  it('uses its own namespace and asks ARP first', () => {
    expect(kvmFlavour.namespace).toBe(KVM_METADATA_NAMESPACE);
    expect(kvmFlavour.addressOrder[0]).toBe('arp');
  });
  it('registers as type kvm and carries the configured name', () => {
    const registry = new ProviderRegistry().register(kvmProviderFactory);
    const { provider, checker } = registry.create('kvm', block, { name: 'kvm-home' });
    expect(provider.type).toBe('kvm');
    expect(provider.name).toBe('kvm-home');
    expect(checker).toBe(provider);
  });
  it('names a bad field under kvm', () => {
    const bad = { ...block, hosts: [{ name: 'h1', address: 'h1.lan:22', user: 'virt', bridge: '' }] };
    expect(() => createKvmProvider(bad, { name: 'x' })).toThrow(/kvm\.hosts\[0\]\.bridge/);
  });
});
