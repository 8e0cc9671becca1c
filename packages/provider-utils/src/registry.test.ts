import { defineProviderFactory } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { ProvidersConfigError } from './config/providers-config-error.js';
import { createLogger, type LogLine } from './logger.js';
import { loadProvidersConfig } from './providers-file/providers-file.js';
import { boxSchema, cloudSchema, stubProvider, testRegistry } from './providers-file/test-registry.js';
import { ProviderRegistry } from './registry.js';

const config = loadProvidersConfig(
  `
- name: dev
  type: box
  box: {hosts: [{name: h, address: "h:22"}], ports: {min: 41000, max: 41010}}
- name: cluster
  type: cloud
`,
  { registry: testRegistry() },
);

describe('ProviderRegistry', () => {
  it('createAll builds every entry in order with its typed config and a named child logger', () => {
    const seen: unknown[] = [];
    const lines: LogLine[] = [];
    const registry = new ProviderRegistry()
      .register(
        defineProviderFactory('box', {
          configSchema: boxSchema,
          create: (cfg, ctx) => {
            seen.push(cfg.ports.min);
            ctx.logger?.log(1, 'box provider built');
            return { provider: stubProvider(ctx.name, 'box') };
          },
        }),
      )
      .register(
        defineProviderFactory('cloud', {
          configSchema: cloudSchema,
          create: (cfg, ctx) => {
            seen.push(cfg.project);
            return { provider: stubProvider(ctx.name, 'cloud'), checker: { check: async () => [] } };
          },
        }),
      );
    const built = registry.createAll(config, {
      logger: createLogger({ verbosity: 1, sink: (l) => lines.push(l) }),
    });
    expect(built.map((b) => [b.entry.name, b.provider.name, b.provider.type])).toEqual([
      ['dev', 'dev', 'box'],
      ['cluster', 'cluster', 'cloud'],
    ]);
    expect(built[1]?.checker).toBeDefined();
    expect(seen).toEqual([41000, 'demo']);
    expect(lines).toEqual([{ provider: 'dev', level: 1, msg: 'box provider built' }]);
  });

  it('refuses a config whose types are not all registered, before building any', () => {
    let built = 0;
    const registry = new ProviderRegistry().register(
      defineProviderFactory('box', (_c, ctx) => {
        built++;
        return { provider: stubProvider(ctx.name, 'box') };
      }),
    );
    try {
      registry.createAll(config);
      expect.unreachable();
    } catch (err) {
      expect(ProvidersConfigError.isInstance(err)).toBe(true);
      expect((err as ProvidersConfigError).issues).toEqual([
        {
          path: 'providers[1].type',
          message: 'type "cloud" of provider "cluster" has no registered factory (registered: box)',
        },
      ]);
    }
    expect(built).toBe(0);
  });

  it('refuses a second factory for one type', () => {
    const f = defineProviderFactory('gcp', (_c, ctx) => ({ provider: stubProvider(ctx.name, 'gcp') }));
    const registry = new ProviderRegistry().register(f);
    expect(() => registry.register(f)).toThrow(/"gcp" is already registered/);
    expect(registry.types()).toEqual(['gcp']);
    expect(registry.has('gcp')).toBe(true);
    expect(registry.factory('gcp')).toBe(f);
  });

  it('refuses a provider that does not carry the configured name', () => {
    const registry = new ProviderRegistry().register(
      defineProviderFactory('local', () => ({ provider: stubProvider('local', 'local') })),
    );
    expect(() => registry.create('local', {}, { name: 'dev' })).toThrow(
      /named "local", expected the configured name "dev"/,
    );
  });

  it('create names the entry and the registered types for an unknown type', () => {
    expect(() => new ProviderRegistry().create('kvm2', {}, { name: 'home' })).toThrow(
      'provider "home": no factory registered for type "kvm2" (registered: none)',
    );
  });
});
