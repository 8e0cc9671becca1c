import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { Provider } from '../provider.js';
import { defineProviderFactory, isProviderFactory, ProviderRegistry } from '../registry.js';
import type { ConfigSchema } from './config-schema.js';
import { ProvidersConfigError } from './providers-config-error.js';
import { loadProvidersConfig, validateProviderBlock } from './providers-file.js';

const hetznerSchema = z.strictObject({
  token: z.string().min(1),
  location: z.enum(['fsn1', 'nbg1']).default('fsn1'),
  servers: z.int().min(1).max(10).default(2),
});

function stub(name: string): Provider {
  const fail = () => Promise.reject(new Error('not used'));
  return {
    name,
    type: 'hetzner',
    profile: {} as Provider['profile'],
    create: fail,
    get: fail,
    delete: fail,
    listByTag: fail,
  };
}

// Types only: a factory for a type outside the bundled six compiles and its config is the schema's output.
const hetzner = defineProviderFactory('hetzner', {
  configSchema: hetznerSchema,
  create: (config, ctx) => {
    const location: 'fsn1' | 'nbg1' = config.location;
    void location;
    return { provider: stub(ctx.name) };
  },
});

function issues(fn: () => unknown): readonly { path: string; message: string }[] {
  try {
    fn();
  } catch (err) {
    if (ProvidersConfigError.isInstance(err)) return err.issues;
    throw err;
  }
  throw new Error('expected a ProvidersConfigError');
}

describe('types from registered factories', () => {
  const registry = new ProviderRegistry().register(hetzner);

  it('accepts a registered type and fills its defaults from the factory schema', () => {
    const [e] = loadProvidersConfig([{ name: 'h', type: 'hetzner', hetzner: { token: 't' } }], { registry });
    expect(e).toEqual({ name: 'h', type: 'hetzner', config: { token: 't', location: 'fsn1', servers: 2 } });
    expect(hetzner.type).toBe('hetzner');
    expect(isProviderFactory(hetzner)).toBe(true);
  });

  it('reports a zod schema in the house format: typo with did-you-mean, wrong type, out of range', () => {
    const got = issues(() =>
      loadProvidersConfig(
        [{ name: 'h', type: 'hetzner', hetzner: { token: 't', locaton: 'fsn1', servers: 99 } }],
        { registry },
      ),
    );
    expect(got).toContainEqual({
      path: 'providers[0].hetzner.locaton',
      message: expect.stringContaining('did you mean "location"?'),
    });
    expect(got).toContainEqual({ path: 'providers[0].hetzner.servers', message: 'must be <= 10, got 99' });
    const wrong = issues(() =>
      loadProvidersConfig([{ name: 'h', type: 'hetzner', hetzner: { token: 5 } }], { registry }),
    );
    expect(wrong).toEqual([{ path: 'providers[0].hetzner.token', message: 'expected string, got number 5' }]);
  });

  it('refuses the type without the registry, naming module: as the way in', () => {
    const got = issues(() => loadProvidersConfig([{ name: 'h', type: 'hetzner', hetzner: { token: 't' } }]));
    expect(got[0]?.path).toBe('providers[0].type');
    expect(got[0]?.message).toMatch(/^unknown type "hetzner" .*module:/);
  });

  it('validates with any Standard Schema, not only zod', () => {
    const schema: ConfigSchema<{ size: number }> = {
      '~standard': {
        version: 1,
        vendor: 'hand-written',
        validate: (v) => {
          const size = (v as { size?: unknown }).size;
          return typeof size === 'number'
            ? { value: { size } }
            : { issues: [{ message: 'size: a number', path: [{ key: 'size' }] }] };
        },
      },
    };
    const reg = new ProviderRegistry().register(
      defineProviderFactory('boxes', {
        configSchema: schema,
        create: (_c, ctx) => ({ provider: stub(ctx.name) }),
      }),
    );
    expect(
      loadProvidersConfig([{ name: 'b', type: 'boxes', boxes: { size: 3 } }], { registry: reg })[0]?.config,
    ).toEqual({ size: 3 });
    expect(
      issues(() => loadProvidersConfig([{ name: 'b', type: 'boxes', boxes: {} }], { registry: reg })),
    ).toEqual([{ path: 'providers[0].boxes.size', message: 'size: a number' }]);
  });
});

describe('entries naming a module', () => {
  it('pass through with the raw block until the module is loaded', () => {
    const [e] = loadProvidersConfig(
      '- {name: h, type: hetzner, module: "@acme/provider-hetzner", hetzner: {token: t}}',
    );
    expect(e).toEqual({
      name: 'h',
      type: 'hetzner',
      module: '@acme/provider-hetzner',
      config: { token: 't' },
    });
  });

  it('still check the entry itself', () => {
    const got = issues(() => loadProvidersConfig([{ name: 'h', type: 'Hetzner!', module: '' }]));
    expect(got.map((i) => i.path).sort()).toEqual(['providers[0].module', 'providers[0].type']);
  });

  it('get their block checked by the module factory schema at the entry path', () => {
    expect(validateProviderBlock(hetznerSchema, { token: 't' }, { index: 3, type: 'hetzner' })).toEqual({
      token: 't',
      location: 'fsn1',
      servers: 2,
    });
    expect(issues(() => validateProviderBlock(hetznerSchema, {}, { index: 3, type: 'hetzner' }))).toEqual([
      { path: 'providers[3].hetzner.token', message: 'required' },
    ]);
  });
});
