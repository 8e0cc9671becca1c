import { readFileSync } from 'node:fs';
import { isConfigSchema } from '@egress-proxies/contract';
import { gcpProviderFactory } from '@egress-proxies/provider-gcp';
import { ProviderRegistry, ProvidersConfigError } from '@egress-proxies/provider-utils';
import { loadProvidersConfig } from '@egress-proxies/provider-utils/providers-file';
import { describe, expect, it } from 'vitest';
import { BUNDLED_PROVIDERS, bundledRegistry } from './bundled.js';

const repoFile = (path: string) => readFileSync(new URL(`../../../../${path}`, import.meta.url), 'utf8');

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
    const registry = await bundledRegistry();
    const built = registry.createAll(loadProvidersConfig(config, { registry }));
    expect(built.map((b) => [b.entry.name, b.provider.name, b.provider.type, !!b.checker])).toEqual([
      ['gcp-eu', 'gcp-eu', 'gcp', true],
      ['pve', 'pve', 'proxmox', true],
      ['dev', 'dev', 'local', true],
      ['k8s', 'k8s', 'kubernetes', true],
    ]);
    await Promise.all(built.map((b) => b.provider.close?.()));
  });

  it('bundles one factory per type, under that type, each with its config schema', async () => {
    const registry = await bundledRegistry();
    expect(registry.types().sort()).toEqual(Object.keys(BUNDLED_PROVIDERS).sort());
    for (const type of registry.types()) {
      expect(registry.factory(type)?.type, type).toBe(type);
      expect(isConfigSchema(registry.factory(type)?.configSchema), type).toBe(true);
    }
  });

  it('loads the sample config, one entry of every bundled type, with every default filled', async () => {
    const registry = await bundledRegistry();
    const entries = loadProvidersConfig(repoFile('config/samples/providers-config.yaml'), { registry });
    expect(new Set(entries.map((e) => e.type))).toEqual(new Set(Object.keys(BUNDLED_PROVIDERS)));
    const local = entries.find((e) => e.type === 'local');
    expect(local?.config).toMatchObject({ engine: 'auto', bindAddress: '127.0.0.1' });
  });

  it('docs/contract.md names every bundled type', () => {
    const text = repoFile('docs/contract.md');
    for (const type of Object.keys(BUNDLED_PROVIDERS)) expect(text, type).toContain(`\`${type}\``);
  });

  it('imports only the types asked for', async () => {
    expect((await bundledRegistry(['local', 'local'])).types()).toEqual(['local']);
  });

  it('refuses a type a registry does not carry, naming the registered ones', async () => {
    const partial = new ProviderRegistry().register(gcpProviderFactory);
    const entries = loadProvidersConfig(
      '- name: home\n  type: kvm2\n  kvm2:\n    sshKeyFile: /k\n    insecureIgnoreHostKey: true\n    machineTypes: {s: {vcpus: 1, memoryMiB: 512}}\n    hosts: [{name: h, address: "h:22", user: u, bridge: br0}]\n',
      { registry: await bundledRegistry(['kvm2']) },
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
