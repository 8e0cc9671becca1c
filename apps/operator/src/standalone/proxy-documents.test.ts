import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatIssue, loadProxyDocuments } from './proxy-documents.js';

const dir = mkdtempSync(join(tmpdir(), 'ep-docs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const proxy = (name: string, spec = 'provider: local') =>
  `apiVersion: egress-proxies.dev/v1alpha1\nkind: Proxy\nmetadata: {name: ${name}}\nspec: {${spec}}\n`;

describe('loadProxyDocuments', () => {
  it('loads several documents per file and every YAML file of a directory, in name order', async () => {
    const d = join(dir, 'many');
    mkdirSync(d);
    writeFileSync(join(d, 'b.yaml'), `${proxy('two')}---\n${proxy('three')}`);
    writeFileSync(join(d, 'a.yml'), proxy('one'));
    writeFileSync(join(d, 'notes.txt'), 'not a proxy');
    const r = await loadProxyDocuments([d]);
    expect(r.issues).toEqual([]);
    expect(r.documents.map((x) => [x.proxy.metadata.name, x.index])).toEqual([
      ['one', 0],
      ['two', 0],
      ['three', 1],
    ]);
    expect(r.documents[0]?.proxy.metadata.namespace).toBe('default');
  });

  it('names the file, document index and field of each bad document and keeps the good ones', async () => {
    const f = join(dir, 'mixed.yaml');
    writeFileSync(
      f,
      [
        proxy('good'),
        proxy('bad-port', 'provider: local, port: 0'),
        'kind: Pod\nmetadata: {name: x}\n',
        proxy('Bad_Name'),
      ].join('---\n'),
    );
    const r = await loadProxyDocuments([f]);
    expect(r.documents.map((x) => x.proxy.metadata.name)).toEqual(['good']);
    const lines = r.issues.map(formatIssue);
    expect(lines).toContain(`${f}[1]: spec.port: must be at least 1, got 0`);
    expect(lines).toContain(`${f}[2]: apiVersion: must be egress-proxies.dev/v1alpha1, got undefined`);
    expect(lines).toContain(`${f}[2]: kind: must be Proxy, got "Pod"`);
    expect(lines).toContain(`${f}[3]: metadata.name: must be a DNS-1123 name, got "Bad_Name"`);
    expect(r.unreadable).toEqual([]);
  });

  it('suggests the key a typo meant in Proxy and ProxyPool documents, at every level', async () => {
    const f = join(dir, 'typos.yaml');
    writeFileSync(
      f,
      [
        'apiVersion: egress-proxies.dev/v1alpha1\nkind: Proxy\nmetadata: {name: a}\nsepc: {provider: local}\n',
        'apiVersion: egress-proxies.dev/v1alpha1\nkind: Proxy\nmetadata: {nmae: b}\nspec: {provider: local}\n',
        proxy('c', 'provider: local, prot: 3128'),
        'apiVersion: egress-proxies.dev/v1alpha1\nkind: ProxyPool\nmetadata: {name: p}\n' +
          'spec: {replica: 2, template: {provider: local}}\n',
        'apiVersion: egress-proxies.dev/v1alpha1\nkind: ProxyPool\nmetadata: {name: q}\n' +
          'spce: {replicas: 2, template: {provider: local}}\n',
      ].join('---\n'),
    );
    const r = await loadProxyDocuments([f]);
    expect(r.documents).toEqual([]);
    expect(r.pools ?? []).toEqual([]);
    const lines = r.issues.map(formatIssue);
    expect(lines).toContain(
      `${f}[0]: sepc: unknown field (did you mean "spec"?) (known: apiVersion, kind, metadata, spec, status)`,
    );
    expect(lines).toContain(
      `${f}[1]: metadata.nmae: unknown field (did you mean "name"?) (known: name, namespace, labels, annotations)`,
    );
    expect(lines.find((l) => l.startsWith(`${f}[2]: spec.prot:`))).toMatch(/did you mean "port"\?/);
    expect(lines.find((l) => l.startsWith(`${f}[3]: spec.replica:`))).toMatch(/did you mean "replicas"\?/);
    expect(lines).toContain(
      `${f}[4]: spce: unknown field (did you mean "spec"?) (known: apiVersion, kind, metadata, spec, status)`,
    );
  });

  it('applies the CRD rules (a Managed Proxy needs a provider)', async () => {
    const f = join(dir, 'rules.yaml');
    writeFileSync(f, proxy('p', 'mode: Managed'));
    const r = await loadProxyDocuments([f]);
    expect(r.issues.map(formatIssue)).toEqual([
      `${f}[0]: spec: spec.provider is required when mode is Managed`,
    ]);
  });

  it('refuses a name defined twice, naming where it was first', async () => {
    const f = join(dir, 'dup.yaml');
    writeFileSync(f, `${proxy('same')}---\n${proxy('same')}`);
    const r = await loadProxyDocuments([f]);
    expect(r.documents).toHaveLength(1);
    expect(r.issues.map(formatIssue)).toEqual([
      `${f}[1]: metadata.name: Proxy default/same is already defined in ${f}[0]`,
    ]);
  });

  it('marks a file with a YAML syntax error or a missing path unreadable', async () => {
    const f = join(dir, 'broken.yaml');
    writeFileSync(f, 'apiVersion: [unclosed\n');
    const missing = join(dir, 'nope.yaml');
    const r = await loadProxyDocuments([f, missing]);
    expect(r.unreadable.sort()).toEqual([f, missing].sort());
    expect(r.issues.map((i) => i.message).join('\n')).toMatch(/YAML: /);
    expect(r.issues.map((i) => i.message).join('\n')).toMatch(/cannot read: ENOENT/);
  });
});
