import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// Exit codes and messages of up/status/down that need no proxy to start.
const MAIN = join(__dirname, '..', 'dist', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'ep-sa-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(...args: string[]) {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build the package first (pnpm build)`);
  return spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', timeout: 30_000, cwd: dir });
}

const providers = join(dir, 'providers.yaml');
writeFileSync(
  providers,
  `- name: local\n  type: local\n  local: {stateDir: local, portRange: {min: 24300, max: 24309}, engine: node}\n` +
    `- name: squidless\n  type: local\n  local: {stateDir: sl, engine: squid, squidPath: /nonexistent/squid}\n`,
);

describe('egress-proxies up / status / down', () => {
  it('exits 2 naming a missing flag or a bad providers file', () => {
    const r = cli('up', '--providers', providers);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('up: -f PATH (Proxy documents) is required');
    const bad = join(dir, 'bad-providers.yaml');
    writeFileSync(bad, '- name: home\n  type: kvm3\n');
    const r2 = cli('up', '-f', join(dir, 'none.yaml'), '--providers', bad, '--state-dir', join(dir, 's0'));
    expect(r2.status).toBe(2);
    expect(r2.stderr).toContain(`invalid providers config ${bad}`);
    expect(r2.stderr).toContain('providers[0].type: unknown type "kvm3"');
  });

  it('up --once fails within --timeout naming the stuck Proxy and why, and reports bad documents', () => {
    const proxies = join(dir, 'proxies.yaml');
    writeFileSync(
      proxies,
      'apiVersion: egress-proxies.dev/v1alpha1\nkind: Proxy\nmetadata: {name: lost}\nspec: {provider: nowhere}\n---\n' +
        'apiVersion: egress-proxies.dev/v1alpha1\nkind: Proxy\nmetadata: {name: bad}\nspec: {provider: local, port: 0}\n',
    );
    const stateDir = join(dir, 's1');
    const r = cli(
      'up',
      '-f',
      proxies,
      '--providers',
      providers,
      '--state-dir',
      stateDir,
      '--once',
      '--timeout',
      '2s',
    );
    expect(r.status).toBe(1);
    // The providers' health checks run first and name a provider that cannot work.
    expect(r.stderr).toMatch(/provider squidless: \S+ is not ready \(EngineUnavailable\): /);
    expect(r.stderr).not.toContain('provider local:');
    expect(r.stderr).toContain(`invalid Proxy document: ${proxies}[1]: spec.port: must be at least 1, got 0`);
    expect(r.stdout).toMatch(/not Ready after 2s: default\/lost is Failed: .*nowhere/);
    const s = cli('status', '--state-dir', stateDir, '--output', 'plain');
    expect(s.status).toBe(0);
    expect(s.stdout).toMatch(/^lost nowhere Failed/m);
    // The providers section: the latest health check of each provider.
    expect(s.stdout).toMatch(/^provider local local ready=true targets=1\/1$/m);
    expect(s.stdout).toMatch(/^provider squidless local ready=false targets=0\/1 \S+: EngineUnavailable: /m);
    expect(s.stdout).toContain('up is not running');
    expect(s.stdout).toContain(`invalid Proxy document: ${proxies}[1]: spec.port`);
    const d = cli('down', '--providers', providers, '--state-dir', stateDir);
    expect(d.status).toBe(0);
    expect(d.stdout).toMatch(/deleted 0 instance\(s\) of installation standalone-/);
  });

  it('status without state exits 1 and says where it looked', () => {
    const r = cli('status', '--state-dir', join(dir, 'empty'));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`no standalone state in ${join(dir, 'empty')}`);
  });

  it('up names each provider module that failed to load and why, --once exits at once, and status shows it', () => {
    // Three ways a module: entry fails: no such file, no factory for its type, an import that throws.
    writeFileSync(join(dir, 'wrong-export.mjs'), 'export const answer = 42;\n');
    writeFileSync(join(dir, 'throws.mjs'), "throw new Error('boom at import');\n");
    const mods = join(dir, 'module-providers.yaml');
    writeFileSync(
      mods,
      '- {name: foo-a, type: foo, module: ./missing.mjs}\n' +
        '- {name: foo-b, type: foo, module: ./wrong-export.mjs}\n' +
        '- {name: foo-c, type: foo, module: ./throws.mjs}\n' +
        '- name: local\n  type: local\n  local: {stateDir: local, portRange: {min: 24360, max: 24369}, engine: node}\n',
    );
    const proxies = join(dir, 'foo-proxies.yaml');
    writeFileSync(
      proxies,
      'apiVersion: egress-proxies.dev/v1alpha1\nkind: Proxy\nmetadata: {name: on-foo}\nspec: {provider: foo-a}\n',
    );
    const stateDir = join(dir, 's-modules');
    // A timeout far beyond the spawn's 30 s: only exiting at once passes.
    const r = cli(
      'up',
      '-f',
      proxies,
      '--providers',
      mods,
      '--state-dir',
      stateDir,
      '--once',
      '--timeout',
      '10m',
    );
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      'cannot load provider "foo-a" (providers[0], type "foo"): module "./missing.mjs" is not found (no file ./missing.mjs',
    );
    expect(r.stderr).toContain(
      'cannot load provider "foo-b" (providers[1], type "foo"): module "./wrong-export.mjs" exports no provider factory for type "foo"',
    );
    expect(r.stderr).toContain(
      'cannot load provider "foo-c" (providers[2], type "foo"): module "./throws.mjs" threw on import: boom at import',
    );
    expect(r.stdout).toContain(
      'not Ready: 3 provider modules failed to load (above); fix the providers file and run again',
    );
    const s = cli('status', '--state-dir', stateDir, '--output', 'plain');
    expect(s.stdout).toMatch(/^provider foo-a foo ready=false .*module "\.\/missing\.mjs" is not found/m);
    expect(s.stdout).toMatch(/^provider foo-c foo ready=false .*threw on import: boom at import$/m);
    expect(s.stdout).toMatch(/^provider local local ready=true/m);
  });

  it('up --once exits at once when the files hold no valid Proxy, with a suggestion for a typo', () => {
    const proxies = join(dir, 'typo-proxies.yaml');
    writeFileSync(
      proxies,
      'apiVersion: egress-proxies.dev/v1alpha1\nkind: Proxy\nmetadata: {name: p}\nspec: {provider: local, prot: 3128}\n',
    );
    const stateDir = join(dir, 's-typo');
    const r = cli(
      'up',
      '-f',
      proxies,
      '--providers',
      providers,
      '--state-dir',
      stateDir,
      '--once',
      '--timeout',
      '10m',
    );
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      `invalid Proxy document: ${proxies}[0]: spec.prot: unknown field (did you mean "port"?)`,
    );
    expect(r.stdout).toContain('not Ready: no valid Proxy in the files (1 problem listed above)');
  });

  it('a typo in a flag gets the flag it most likely meant', () => {
    const r = cli('up', '-f', 'x.yaml', '--providers', providers, '--onec');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("up: Unknown option '--onec' (did you mean --once?)");
  });
});
