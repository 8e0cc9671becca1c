import { type ConfigSchema, defineProviderFactory } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { ProvidersConfigError } from '../config/providers-config-error.js';
import { ProviderRegistry } from '../registry.js';
import {
  loadProvidersConfig,
  parseProvidersDocument,
  providerTypesIn,
  validateProviderBlock,
} from './providers-file.js';
import { boxSchema, stubProvider, testRegistry } from './test-registry.js';

const registry = testRegistry();
const load = (input: unknown, source?: string) =>
  loadProvidersConfig(input, { registry, ...(source ? { source } : {}) });
const box = () => ({ hosts: [{ name: 'h1', address: 'h1.lan:22' }] });

/** Loads `config` expecting failure; returns the issues. */
function issuesOf(config: unknown, reg: ProviderRegistry = registry): { path: string; message: string }[] {
  try {
    loadProvidersConfig(config, { registry: reg });
  } catch (err) {
    expect(ProvidersConfigError.isInstance(err)).toBe(true);
    return [...(err as ProvidersConfigError).issues];
  }
  throw new Error('expected the config to be rejected');
}

/** Asserts an issue at exactly `path` whose message contains every `parts` entry. */
function expectIssue(config: unknown, path: string, ...parts: string[]): void {
  const issues = issuesOf(config);
  const at = issues.filter((i) => i.path === path);
  expect(at, `no issue at ${path}; got ${JSON.stringify(issues)}`).not.toHaveLength(0);
  const match = at.find((i) => parts.every((p) => i.message.includes(p)));
  expect(match, `issues at ${path}: ${JSON.stringify(at)}; wanted ${JSON.stringify(parts)}`).toBeDefined();
}

describe('entries', () => {
  it('an unknown type, with a did-you-mean and the registered list', () => {
    expectIssue(
      [{ name: 'b', type: 'boxx', boxx: {} }],
      'providers[0].type',
      'unknown type "boxx" (did you mean "box"?)',
      'known: box, cloud',
      'module:',
    );
  });

  it('duplicate entry names', () => {
    const cfg = [
      { name: 'home', type: 'box', box: box() },
      { name: 'home', type: 'cloud', cloud: {} },
    ];
    expectIssue(cfg, 'providers[1].name', 'duplicate name "home"', 'providers[0]');
  });

  it('a block that does not match the type, and the missing one', () => {
    const cfg = [{ name: 'x', type: 'box', cloud: {} }];
    expectIssue(cfg, 'providers[0].cloud', 'does not match type "box"');
    expectIssue(cfg, 'providers[0].box', 'required (a box entry carries a box: block)');
  });

  it('a provider name that is not a DNS label, or not a string', () => {
    expectIssue([{ name: 'Home_Lab', type: 'cloud' }], 'providers[0].name', '"Home_Lab"');
    expectIssue([{ name: 7, type: 'cloud' }], 'providers[0].name', 'expected string', '7');
  });

  it('an entry that is not an object, and a root that is not a list', () => {
    expectIssue(['box'], 'providers[0]', '"box"');
    expectIssue({ name: 'x' }, 'providers', 'expected a list');
    expectIssue('', 'providers', 'empty document');
  });

  it('a missing type names the known ones', () => {
    expectIssue([{ name: 'x', cloud: {} }], 'providers[0].type', 'required', 'box, cloud');
  });

  it('an unknown key on the entry, and next to providers at the root', () => {
    expectIssue(
      [{ name: 'x', type: 'cloud', labels: {} }],
      'providers[0].labels',
      'unknown key "labels"',
      'known: name, type, module, createTimeout, cloud',
    );
    expectIssue({ providers: [], version: 2 }, 'version', 'unknown key "version"');
  });

  it('createTimeout: a duration kept in ms on the entry; anything else names the bad value', () => {
    expect(load([{ name: 'x', type: 'cloud', createTimeout: '1h30m' }])[0]?.createTimeoutMs).toBe(5_400_000);
    expect(load([{ name: 'x', type: 'cloud' }])[0]).not.toHaveProperty('createTimeoutMs');
    for (const bad of ['30 minutes', '0s', 90, '']) {
      expectIssue(
        [{ name: 'x', type: 'cloud', createTimeout: bad }],
        'providers[0].createTimeout',
        'expected a positive duration such as 30m',
        JSON.stringify(bad),
      );
    }
  });

  it('an unknown type does not also complain about its block', () => {
    expect(issuesOf([{ name: 'x', type: 'kvm3', box: {} }]).map((i) => i.path)).toEqual([
      'providers[0].type',
    ]);
  });

  it('collects every issue of every entry in one error, one per line, with the block schema messages', () => {
    const cfg = [
      { name: 'a', type: 'box', box: { ...box(), ports: { min: 5000, max: 4000 }, mode: 'x' } },
      { name: 'b', type: 'cloud', cloud: { diskGB: 20 } },
    ];
    try {
      load(cfg, 'providers.yaml');
      expect.unreachable();
    } catch (err) {
      const e = err as ProvidersConfigError;
      expect(e.code).toBe('INVALID_PROVIDERS_CONFIG');
      expect(e.issues).toEqual([
        { path: 'providers[0].box.ports', message: 'min 5000 must be <= max 4000' },
        { path: 'providers[0].box.mode', message: 'must be one of "fast", "safe", got "x"' },
        {
          path: 'providers[1].cloud.diskGB',
          message: 'unknown key "diskGB" (did you mean "diskGb"?) (known: project, diskGb)',
        },
      ]);
      expect(e.message.split('\n')).toEqual([
        'invalid providers config providers.yaml (3 issues)',
        ...e.issues.map((i) => `${i.path}: ${i.message}`),
      ]);
    }
  });

  it('shows an object in the wrong place by its keys, never its contents', () => {
    const issues = issuesOf([
      { name: 'x', type: 'cloud', cloud: { project: { token: 'root@pam!op=s3cr3t-value' } } },
    ]);
    expect(issues).toEqual([
      { path: 'providers[0].cloud.project', message: 'expected string, got object {token}' },
    ]);
    expect(JSON.stringify(issues)).not.toContain('s3cr3t');
  });
});

describe('YAML and JSON text', () => {
  it('reports a YAML syntax error with its line and column', () => {
    try {
      load('- name: a\n  type: cloud\n  cloud: {project: x\n', 'providers.yaml');
      expect.unreachable();
    } catch (err) {
      const e = err as ProvidersConfigError;
      expect(ProvidersConfigError.isInstance(err)).toBe(true);
      expect(e.issues[0]!.path).toMatch(/^providers\.yaml:\d+:\d+$/);
      expect(e.issues[0]!.message).toMatch(/^YAML syntax error: /);
    }
  });

  it('reports a duplicate YAML key', () => {
    const issues = issuesOf('- name: a\n  name: b\n  type: cloud\n');
    expect(issues[0]!.path).toBe('<input>:2:3');
    expect(issues[0]!.message).toContain('unique');
  });

  it('accepts JSON text, the {providers: [...]} form and bytes', () => {
    expect(load(JSON.stringify({ providers: [{ name: 'c', type: 'cloud' }] }))[0]).toMatchObject({
      name: 'c',
    });
    const bytes = new TextEncoder().encode('- {name: c, type: cloud}\n');
    expect(load(bytes).map((e) => e.name)).toEqual(['c']);
  });

  it('treats an empty block (null in YAML) and an absent one as defaults', () => {
    expect(load('- name: c\n  type: cloud\n  cloud:\n')[0]?.config).toEqual({ project: 'demo', diskGb: 10 });
    expect(load([{ name: 'c', type: 'cloud' }])[0]?.config).toEqual({ project: 'demo', diskGb: 10 });
  });

  it('parses text once: a JSON string document is not parsed again', () => {
    expectIssue(JSON.stringify('- name: x'), 'providers', 'expected a list', 'string');
  });
});

describe('defaults', () => {
  it('fills each block from its factory schema', () => {
    const [e] = load([{ name: 'b', type: 'box', box: box() }]);
    expect(e).toEqual({
      name: 'b',
      type: 'box',
      config: {
        hosts: [{ name: 'h1', address: 'h1.lan:22' }],
        ports: { min: 40000, max: 40999 },
        allowed: ['127.0.0.0/8'],
        mode: 'safe',
      },
    });
  });

  it('does not share default objects between entries or loads', () => {
    const allowed = (e: { config: unknown } | undefined) => (e!.config as { allowed: string[] }).allowed;
    const [a, b] = load([
      { name: 'a', type: 'box', box: box() },
      { name: 'b', type: 'box', box: box() },
    ]);
    allowed(a).push('10.0.0.0/8');
    expect(allowed(b)).toEqual(['127.0.0.0/8']);
    expect(allowed(load([{ name: 'c', type: 'box', box: box() }])[0])).toEqual(['127.0.0.0/8']);
  });
});

describe('types come from the registry', () => {
  it('an empty registry knows no type', () => {
    const issues = issuesOf([{ name: 'c', type: 'cloud' }], new ProviderRegistry());
    expect(issues[0]?.message).toMatch(/^unknown type "cloud" \(known: none; .*module:\)$/);
  });

  it('validates with any Standard Schema, with its own messages', () => {
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
        create: (_c, ctx) => ({ provider: stubProvider(ctx.name, 'boxes') }),
      }),
    );
    expect(
      loadProvidersConfig([{ name: 'b', type: 'boxes', boxes: { size: 3 } }], { registry: reg })[0]?.config,
    ).toEqual({
      size: 3,
    });
    expect(issuesOf([{ name: 'b', type: 'boxes', boxes: {} }], reg)).toEqual([
      { path: 'providers[0].boxes.size', message: 'size: a number' },
    ]);
  });

  it('refuses a schema that validates asynchronously', () => {
    const schema: ConfigSchema = {
      '~standard': { version: 1, vendor: 'async', validate: async (v) => ({ value: v }) },
    };
    const reg = new ProviderRegistry().register(
      defineProviderFactory('slow', {
        configSchema: schema,
        create: (_c, ctx) => ({ provider: stubProvider(ctx.name, 'slow') }),
      }),
    );
    expect(issuesOf([{ name: 's', type: 'slow', slow: {} }], reg)[0]?.message).toContain(
      'must be synchronous',
    );
  });

  it('takes the block as written for a factory without a schema', () => {
    const reg = new ProviderRegistry().register(
      defineProviderFactory('raw', (_c, ctx) => ({ provider: stubProvider(ctx.name, 'raw') })),
    );
    expect(
      loadProvidersConfig([{ name: 'r', type: 'raw', raw: { any: 1 } }], { registry: reg })[0]?.config,
    ).toEqual({
      any: 1,
    });
  });
});

describe('entries naming a module', () => {
  it('pass through with the raw block until the module is loaded', () => {
    const [e] = load('- {name: h, type: hetzner, module: "@acme/provider-hetzner", hetzner: {token: t}}');
    expect(e).toEqual({
      name: 'h',
      type: 'hetzner',
      module: '@acme/provider-hetzner',
      config: { token: 't' },
    });
  });

  it('still check the entry itself', () => {
    const got = issuesOf([{ name: 'h', type: 'Hetzner!', module: '' }]);
    expect(got.map((i) => i.path).sort()).toEqual(['providers[0].module', 'providers[0].type']);
  });

  it('get their block checked by the module factory schema at the entry path', () => {
    expect(validateProviderBlock(boxSchema, box(), { index: 3, type: 'box' })).toMatchObject({
      mode: 'safe',
    });
    try {
      validateProviderBlock(boxSchema, {}, { index: 3, type: 'box', source: 'p.yaml' });
      expect.unreachable();
    } catch (err) {
      expect((err as ProvidersConfigError).issues).toEqual([
        { path: 'providers[3].box.hosts', message: 'required' },
      ]);
      expect((err as Error).message.split('\n')[0]).toBe('invalid providers config p.yaml (1 issue)');
    }
    expect(validateProviderBlock(undefined, null, { index: 0, type: 'x' })).toEqual({});
  });
});

describe('parseProvidersDocument and providerTypesIn', () => {
  it('lists the types named without a module, once each', () => {
    const doc = parseProvidersDocument(
      '- {name: a, type: box}\n- {name: b, type: box}\n- {name: c, type: x, module: m}\n- {name: d, type: 7}\n',
    );
    expect(providerTypesIn(doc)).toEqual(['box']);
  });
});
