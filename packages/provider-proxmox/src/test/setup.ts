import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProxmoxProvider, type ProxmoxProvider, type ProxmoxProviderOptions } from '../provider.js';
import { FakePve, type FakePveOptions } from './fake-pve.js';

export interface FakeSetup {
  fake: FakePve;
  /** A provider config pointing at the fake, trusting its CA, with its token file written. */
  config: Record<string, unknown>;
  dir: string;
  tokenFile: string;
  caFile: string;
  provider(overrides?: Record<string, unknown>, options?: ProxmoxProviderOptions): ProxmoxProvider;
  close(): Promise<void>;
}

/**
 * Starts a fake PVE with one template (VMID 9000 as `debian`) on every node, writes the token
 * and CA files, and hands back a config for it. Budgets are shortened for tests.
 */
export async function startFakeSetup(
  o: FakePveOptions & { templates?: Record<string, number> } = {},
): Promise<FakeSetup> {
  const fake = new FakePve(o);
  await fake.start();
  const templates = o.templates ?? { debian: 9000 };
  Object.values(templates).forEach((vmid, i) => {
    fake.addTemplate(vmid, fake.nodes[i % fake.nodes.length]);
  });
  const dir = mkdtempSync(join(tmpdir(), 'fake-pve-'));
  const tokenFile = join(dir, 'token');
  const caFile = join(dir, 'ca.pem');
  writeFileSync(tokenFile, `${fake.addToken()}\n`);
  writeFileSync(caFile, fake.tls.caPem);
  const config = {
    url: fake.url,
    tokenFile,
    caFile,
    nodes: fake.nodes,
    isoStorage: 'local',
    templates,
    machineTypes: { small: { cores: 1, memoryMiB: 512, diskGiB: 10 } },
  };
  const made: ProxmoxProvider[] = [];
  return {
    fake,
    config,
    dir,
    tokenFile,
    caFile,
    provider(overrides = {}, options = {}) {
      const p = createProxmoxProvider(
        { ...config, ...overrides },
        { ...options, budgets: { pollMs: 5, runningMs: 5_000, checkMs: 5_000, ...options.budgets } },
      );
      made.push(p);
      return p;
    },
    async close() {
      await Promise.all(made.map((p) => p.close()));
      await fake.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
