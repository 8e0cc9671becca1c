import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProviderFactory } from '@egress-proxies/contract';
import { ProvidersConfigError } from '@egress-proxies/provider-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { referenceHandle } from '../../test/support/reconcile-fixture.js';
import { ProviderLoader } from './provider-loader.js';

const dir = mkdtempSync(join(tmpdir(), 'ep-modules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A provider module as an author publishes it: plain ESM, a factory with a Standard Schema.
const factorySource = (type: string) => `
export const ${type}ProviderFactory = {
  type: ${JSON.stringify(type)},
  configSchema: { '~standard': { version: 1, vendor: 'test', validate: (v) =>
    typeof v.zone === 'string' ? { value: { zone: v.zone, size: v.size ?? 1 } }
      : { issues: [{ message: 'expected a zone name', path: ['zone'] }] } } },
  create: (config, ctx) => ({ provider: { name: ctx.name, type: ${JSON.stringify(type)}, config } }),
};
`;
writeFileSync(join(dir, 'hetzner.mjs'), factorySource('hetzner'));
writeFileSync(join(dir, 'throws.mjs'), "throw new Error('boom at import');\n");
writeFileSync(join(dir, 'empty.mjs'), 'export const answer = 42;\n');
const pkg = join(dir, 'node_modules', '@acme', 'provider-boxes');
mkdirSync(join(pkg, 'dist'), { recursive: true });
writeFileSync(
  join(pkg, 'package.json'),
  JSON.stringify({
    name: '@acme/provider-boxes',
    type: 'module',
    exports: { '.': { import: './dist/index.js' } },
  }),
);
writeFileSync(join(pkg, 'dist', 'index.js'), factorySource('boxes'));

function counting() {
  const imported: string[] = [];
  const fake = (type: string) => async () => {
    imported.push(type);
    return {
      type,
      create: (_c: unknown, ctx: { name: string }) => ({ provider: referenceHandle(ctx.name).provider }),
    } as ProviderFactory;
  };
  return { imported, bundled: { local: fake('local'), gcp: fake('gcp'), kvm2: fake('kvm2') } };
}

const local = { name: 'dev', type: 'local', local: { stateDir: '/tmp/x' } };

describe('ProviderLoader', () => {
  it('imports only the bundled packages the config names', async () => {
    const { imported, bundled } = counting();
    const loader = new ProviderLoader({ source: 'p.yaml', bundled });
    const { entries, failures } = await loader.prepare(await loader.loadConfig([local]));
    expect(imported).toEqual(['local']);
    expect(failures).toEqual([]);
    expect(loader.create(entries[0]!, { name: 'dev' }).provider.name).toBe('dev');
  });

  it('loads a module by path and by package name, validating each block with its factory schema', async () => {
    const { bundled } = counting();
    const loader = new ProviderLoader({ source: 'p.yaml', bundled, modulesDir: dir });
    const { entries, failures } = await loader.prepare(
      await loader.loadConfig([
        { name: 'h', type: 'hetzner', module: './hetzner.mjs', hetzner: { zone: 'fsn1' } },
        { name: 'b', type: 'boxes', module: '@acme/provider-boxes', boxes: { zone: 'z', size: 3 } },
      ]),
    );
    expect(failures).toEqual([]);
    expect(entries.map((e) => e.config)).toEqual([
      { zone: 'fsn1', size: 1 },
      { zone: 'z', size: 3 },
    ]);
    const set = loader.providerSet();
    await set.apply(entries);
    expect(set.names()).toEqual(['h', 'b']);
    expect((set.get('b')?.provider as unknown as { config: unknown } | undefined)?.config).toEqual({
      zone: 'z',
      size: 3,
    });
  });

  it("resolves a package name from the operator's own install when the modules dir lacks it", async () => {
    const loader = new ProviderLoader({ source: 'p.yaml', bundled: {}, modulesDir: dir });
    const { entries, failures } = await loader.prepare(
      await loader.loadConfig([{ ...local, module: '@egress-proxies/provider-local' }]),
    );
    expect(failures).toEqual([]);
    expect(entries[0]?.config).toMatchObject({ stateDir: '/tmp/x', engine: 'auto' });
  });

  it('reports a bad block of a module entry at its path, as any config error', async () => {
    const loader = new ProviderLoader({ source: 'p.yaml', bundled: counting().bundled, modulesDir: dir });
    const err = await loader
      .prepare(
        await loader.loadConfig([
          local,
          { name: 'h', type: 'hetzner', module: './hetzner.mjs', hetzner: {} },
        ]),
      )
      .catch((e: unknown) => e);
    expect(ProvidersConfigError.isInstance(err)).toBe(true);
    expect((err as ProvidersConfigError).issues).toEqual([
      { path: 'providers[1].hetzner.zone', message: 'expected a zone name' },
    ]);
  });

  it('drops an entry whose module is missing, throws or has no factory, naming entry and module; the rest load', async () => {
    const { bundled } = counting();
    const loader = new ProviderLoader({ source: 'p.yaml', bundled, modulesDir: dir });
    const { entries, failures } = await loader.prepare(
      await loader.loadConfig([
        { name: 'gone', type: 'x', module: '@acme/not-installed' },
        { name: 'gone-file', type: 'x', module: './nope.mjs' },
        local,
        { name: 'bad', type: 'x', module: './throws.mjs' },
        { name: 'none', type: 'x', module: './empty.mjs' },
        { name: 'other', type: 'x', module: './hetzner.mjs' },
      ]),
    );
    expect(entries.map((e) => e.name)).toEqual(['dev']);
    const messages = failures.map((f) => f.message);
    expect(messages[0]).toMatch(
      /^provider "gone" \(providers\[0\], type "x"\): module "@acme\/not-installed" is not found/,
    );
    expect(messages[1]).toMatch(
      /^provider "gone-file" \(providers\[1\], type "x"\): module "\.\/nope\.mjs" is not found/,
    );
    expect(messages[2]).toMatch(
      /^provider "bad" \(providers\[3\], type "x"\): module "\.\/throws\.mjs" threw on import: boom at import/,
    );
    expect(messages[3]).toMatch(
      /module "\.\/empty\.mjs" exports no provider factory for type "x" \(it exports no factory at all/,
    );
    expect(messages[4]).toMatch(
      /module "\.\/hetzner\.mjs" exports no provider factory for type "x" \(it exports factories for "hetzner"/,
    );
    expect(failures.map((f) => f.code)).toEqual(Array(5).fill('PROVIDER_MODULE'));
  });

  it('refuses a type nothing serves, for the whole config, naming the bundled types and module:', async () => {
    const loader = new ProviderLoader({ source: 'p.yaml', bundled: counting().bundled });
    const entries = (await loader.loadConfig([local])).map((e) => ({ ...e, type: 'proxmox' as const }));
    const err = await loader.prepare(entries as never).catch((e: unknown) => e);
    expect((err as Error).message).toContain(
      'providers[0].type: type "proxmox" of provider "dev" is not bundled in this build (bundled: local, gcp, kvm2; name a module: for another)',
    );
  });
});
