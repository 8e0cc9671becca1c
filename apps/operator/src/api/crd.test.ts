import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crdFiles, proxyCrd } from './crd.js';

const crdDir = join(__dirname, '..', '..', '..', '..', 'config', 'crd');

describe('CRD manifests', () => {
  it('the committed config/crd files are what the schema generates (run `egress-proxies crds --out config/crd`)', () => {
    for (const [name, text] of Object.entries(crdFiles())) {
      expect(readFileSync(join(crdDir, name), 'utf8'), `config/crd/${name} is stale`).toBe(text);
    }
  });

  it('has the printer columns and short name kubectl shows', () => {
    const v = proxyCrd().spec.versions[0]!;
    expect(proxyCrd().spec.names.shortNames).toEqual(['px']);
    expect(v.additionalPrinterColumns.filter((c) => !c.priority).map((c) => c.name)).toEqual([
      'Mode',
      'Provider',
      'Phase',
      'IP',
      'Healthy',
      'Age',
    ]);
    expect(v.subresources).toEqual({ status: {} });
  });

  it('carries the cross-field rules as CEL with their messages', () => {
    const props = proxyCrd().spec.versions[0]!.schema.openAPIV3Schema.properties as Record<string, unknown>;
    const spec = props.spec as Record<string, unknown>;
    const rules = spec['x-kubernetes-validations'] as { rule: string; message: string }[];
    expect(rules.map((r) => r.message)).toContain('spec.provider is required when mode is Managed');
  });
});
