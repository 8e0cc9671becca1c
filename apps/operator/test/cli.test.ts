import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { crdFiles } from '../src/api/crd.js';

const MAIN = join(__dirname, '..', 'dist', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'ep-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const kubeconfig = join(dir, 'kubeconfig');
writeFileSync(
  kubeconfig,
  'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
);

function cli(...args: string[]) {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build the package first (pnpm build)`);
  return spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', timeout: 30_000 });
}

describe('egress-proxies CLI', () => {
  it('exits 2 on a bad providers config, naming the file and the bad path', () => {
    const path = join(dir, 'providers.yaml');
    writeFileSync(path, '- name: a\n  type: kvm3\n');
    const r = cli(
      'run',
      '--kubeconfig',
      kubeconfig,
      '--providers-config',
      path,
      '--http-bind-address',
      '127.0.0.1:0',
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`invalid providers config ${path}`);
    expect(r.stderr).toContain('providers[0].type: unknown type "kvm3"');
  });

  it('exits 2 on an unusable kubeconfig, naming it', () => {
    const empty = join(dir, 'empty-kubeconfig');
    writeFileSync(empty, '');
    const r = cli('run', '--kubeconfig', empty);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`cannot load ${empty}`);
  });

  it('exits 2 on a bad flag, naming it', () => {
    const r = cli('run', '--workers', 'zero');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--workers: expected an integer from 1 to 256, got "zero"');
  });

  it('prints the CRDs', () => {
    const r = cli('crds');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(Object.values(crdFiles()).join('---\n'));
  });

  it('prints usage and rejects an unknown command', () => {
    expect(cli('--help').stdout).toContain('usage: egress-proxies <command>');
    const r = cli('frobnicate');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown command "frobnicate"');
  });
});
