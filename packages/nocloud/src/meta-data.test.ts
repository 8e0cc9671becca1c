import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureJudges, PYTHON, runText } from '../test/helpers/iso-tools.js';
import { SeedInputError } from './errors.js';
import { metaData } from './meta-data.js';

/** Parses YAML with PyYAML's safe_load, the loader cloud-init reads meta-data with. */
function cloudInitYaml(doc: string): unknown {
  const script = 'import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1]).read()), sys.stdout)';
  const dir = mkdtempSync(join(tmpdir(), 'nocloud-yaml-'));
  try {
    writeFileSync(join(dir, 'meta-data'), doc);
    return JSON.parse(runText(PYTHON, ['-c', script, join(dir, 'meta-data')]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('metaData', () => {
  beforeAll(() => ensureJudges(), 900_000);

  it('writes instance-id and local-hostname', () => {
    expect(metaData({ instanceId: 'proxy-a-0123456789abcdef', hostname: 'proxy-a' })).toBe(
      'instance-id: "proxy-a-0123456789abcdef"\nlocal-hostname: "proxy-a"\n',
    );
  });

  it('reads back as strings through YAML even when a value looks like a number or a boolean', () => {
    for (const [instanceId, hostname] of [
      ['12345', 'on'],
      ['1e3', 'yes'],
      ['0x10', 'null'],
    ] as const) {
      expect(cloudInitYaml(metaData({ instanceId, hostname }))).toEqual({
        'instance-id': instanceId,
        'local-hostname': hostname,
      });
    }
  });

  it.each([
    ['instanceId', { instanceId: '', hostname: 'h' }],
    ['instanceId', { instanceId: 'a b', hostname: 'h' }],
    ['instanceId', { instanceId: 'a"\n', hostname: 'h' }],
    ['instanceId', { hostname: 'h' }],
    ['hostname', { instanceId: 'i', hostname: 'bad_host' }],
    ['hostname', { instanceId: 'i', hostname: '-a' }],
    ['hostname', { instanceId: 'i', hostname: `${'a'.repeat(64)}` }],
    ['hostname', { instanceId: 'i', hostname: 5 }],
  ])('rejects a bad %s naming it', (field, input) => {
    let caught: unknown;
    try {
      metaData(input as never);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(TypeError);
    expect(SeedInputError.isInstance(caught)).toBe(true);
    expect((caught as SeedInputError).field).toBe(field);
  });

  it('accepts a fully qualified hostname', () => {
    expect(metaData({ instanceId: 'i', hostname: 'proxy-a.egress.example' })).toContain(
      'local-hostname: "proxy-a.egress.example"',
    );
  });
});
