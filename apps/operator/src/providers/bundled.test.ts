import {
  loadProvidersConfig,
  PROVIDER_TYPES,
  ProviderRegistry,
  ProvidersConfigError,
} from '@egress-proxies/contract';
import { gcpProviderFactory } from '@egress-proxies/provider-gcp';
import { describe, expect, it } from 'vitest';
import { bundledRegistry } from './bundled.js';

const config = `
- name: gcp-eu
  type: gcp
  gcp:
    project: my-proxies-project
    zones: [europe-west3-a]
    firewall: {enabled: true, sourceRanges: [10.0.0.0/8]}
- name: pve
  type: proxmox
  proxmox:
    url: https://127.0.0.1:1
    tokenFile: /nonexistent/token
    nodes: [pv1]
    isoStorage: local
    templates: {debian-13: 9000}
    machineTypes: {small: {cores: 1, memoryMiB: 1024}}
- name: dev
  type: local
  local: {stateDir: /nonexistent/state}
- name: k8s
  type: kubernetes
  kubernetes: {}
`;

describe('bundledRegistry', () => {
  it('builds the bundled providers under their configured names without touching a backend', async () => {
    const built = (await bundledRegistry()).createAll(loadProvidersConfig(config));
    expect(built.map((b) => [b.entry.name, b.provider.name, b.provider.type, !!b.checker])).toEqual([
      ['gcp-eu', 'gcp-eu', 'gcp', true],
      ['pve', 'pve', 'proxmox', true],
      ['dev', 'dev', 'local', true],
      ['k8s', 'k8s', 'kubernetes', true],
    ]);
    await Promise.all(built.map((b) => b.provider.close?.()));
  });

  it('bundles a factory for every provider type the providers config accepts', async () => {
    expect([...(await bundledRegistry()).types()].sort()).toEqual([...PROVIDER_TYPES].sort());
  });

  it('imports only the types asked for', async () => {
    expect((await bundledRegistry(['local', 'local'])).types()).toEqual(['local']);
  });

  it('refuses a type a registry does not carry, naming the registered ones', () => {
    const partial = new ProviderRegistry().register(gcpProviderFactory);
    const entries = loadProvidersConfig(
      '- name: home\n  type: kvm2\n  kvm2:\n    sshKeyFile: /k\n    insecureIgnoreHostKey: true\n    machineTypes: {s: {vcpus: 1, memoryMiB: 512}}\n    hosts: [{name: h, address: "h:22", user: u, bridge: br0}]\n',
    );
    let err: unknown;
    try {
      partial.createAll(entries);
    } catch (e) {
      err = e;
    }
    expect(ProvidersConfigError.isInstance(err)).toBe(true);
    expect((err as Error).message).toContain(
      'providers[0].type: type "kvm2" of provider "home" has no registered factory (registered: gcp)',
    );
  });
});
