import { describe, expect, it } from 'vitest';
import { ProvidersConfigError } from './config/providers-config-error.js';
import { loadProvidersConfig } from './config/providers-file.js';
import { createLogger, type LogLine } from './logger.js';
import type { Provider } from './provider.js';
import { defineProviderFactory, ProviderRegistry } from './registry.js';

function stubProvider(name: string, type: string): Provider {
  const fail = () => Promise.reject(new Error('not used'));
  return {
    name,
    type,
    profile: {} as Provider['profile'],
    create: fail,
    get: fail,
    delete: fail,
    listByTag: () => Promise.resolve([]),
  };
}

const config = loadProvidersConfig(`
- name: dev
  type: local
  local: {stateDir: /tmp/ep, portRange: {min: 41000, max: 41010}}
- name: cluster
  type: kubernetes
`);

describe('ProviderRegistry', () => {
  it('createAll builds every entry in order with its typed config and a named child logger', () => {
    const seen: unknown[] = [];
    const lines: LogLine[] = [];
    const registry = new ProviderRegistry()
      .register(
        defineProviderFactory('local', (cfg, ctx) => {
          seen.push(cfg.portRange.min);
          ctx.logger?.log(1, 'local provider built');
          return { provider: stubProvider(ctx.name, 'local') };
        }),
      )
      .register(
        defineProviderFactory('kubernetes', (cfg, ctx) => {
          seen.push(cfg.namespacePolicy);
          return { provider: stubProvider(ctx.name, 'kubernetes'), checker: { check: async () => [] } };
        }),
      );
    const built = registry.createAll(config, {
      logger: createLogger({ verbosity: 1, sink: (l) => lines.push(l) }),
    });
    expect(built.map((b) => [b.entry.name, b.provider.name, b.provider.type])).toEqual([
      ['dev', 'dev', 'local'],
      ['cluster', 'cluster', 'kubernetes'],
    ]);
    expect(built[1]?.checker).toBeDefined();
    expect(seen).toEqual([41000, 'proxy']);
    expect(lines).toEqual([{ provider: 'dev', level: 1, msg: 'local provider built' }]);
  });

  it('refuses a config whose types are not all registered, before building any', () => {
    let built = 0;
    const registry = new ProviderRegistry().register(
      defineProviderFactory('local', (_c, ctx) => {
        built++;
        return { provider: stubProvider(ctx.name, 'local') };
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
          message: 'type "kubernetes" of provider "cluster" has no registered factory (registered: local)',
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
