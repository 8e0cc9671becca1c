import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineProviderFactory } from '@egress-proxies/contract';
import { ProviderRegistry } from '@egress-proxies/provider-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { referenceHandle } from '../../test/support/reconcile-fixture.js';
import { providerLoader } from '../providers/load-providers.js';
import { loadStandaloneProviders } from './providers-file.js';

const dir = mkdtempSync(join(tmpdir(), 'ep-providers-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadStandaloneProviders', () => {
  it("accepts a type only an embedder's registry serves, checked with its factory schema", async () => {
    const registry = new ProviderRegistry().register(
      defineProviderFactory('boxes', {
        configSchema: {
          '~standard': {
            version: 1,
            vendor: 'test',
            validate: (v) => ({ value: { size: (v as { size?: number }).size ?? 2 } }),
          },
        },
        create: (_config, ctx) => ({ provider: referenceHandle(ctx.name).provider }),
      }),
    );
    const path = join(dir, 'providers.yaml');
    writeFileSync(path, '- name: b\n  type: boxes\n  boxes: {}\n');
    const entries = await loadStandaloneProviders(path, providerLoader(path, { registry }));
    expect(entries).toEqual([{ name: 'b', type: 'boxes', config: { size: 2 } }]);
  });
});
