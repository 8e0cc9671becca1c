import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMAND_USAGE } from '../src/commands/table.js';
import { runCli } from './support/run-cli.js';

// The conventions every command keeps: --help, --version, unknown flags refused, json output
// that is only JSON records.
const dir = mkdtempSync(join(tmpdir(), 'ep-cli-conv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (...args: string[]) =>
  runCli(args, { cwd: dir, env: { ...process.env, KUBECONFIG: join(dir, 'no-kubeconfig') } });

/** The words that must come before a flag (`secret` needs its kind). */
const PREFIX: Record<string, string[]> = { secret: ['secret', 'kvm-ssh'] };
const COMMANDS = ['run', 'crds', 'up', 'status', 'down', 'secret', 'gateway', 'version'];

describe('CLI conventions', () => {
  it('prints the package version for --version and version', async () => {
    const { version } = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    for (const arg of ['--version', 'version']) {
      const r = await cli(arg);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(`egress-proxies ${version}\n`);
      expect(r.stderr).toBe('');
    }
    const help = await cli('--version', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toBe(COMMAND_USAGE.version);
    for (const extra of [await cli('--version', '--bogus'), await cli('version', 'stray')]) {
      expect(extra.status).toBe(2);
      expect(extra.stderr).toMatch(/^egress-proxies: version: .*'(--bogus|stray)'/);
      expect(extra.stdout).toBe('');
    }
  });

  it.each(COMMANDS)(
    '%s --help prints that command’s usage, ending with a newline, and exits 0',
    async (command) => {
      const r = await cli(...(PREFIX[command] ?? [command]), '--help');
      expect(r.status).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(COMMAND_USAGE[command]);
      expect(r.stdout).toMatch(new RegExp(`^(usage:|      ) egress-proxies ${command}\\b`, 'm'));
      expect(r.stdout.endsWith('\n')).toBe(true);
    },
  );

  it("status and down print their own flags, not all of up's", async () => {
    const status = await cli('status', '--help');
    expect(status.stdout).toMatch(/^usage: egress-proxies status /);
    expect(status.stdout).toContain('--state-dir');
    expect(status.stdout).not.toContain('--demo');
    const down = await cli('down', '--help');
    expect(down.stdout).toMatch(/^usage: egress-proxies down /);
    expect(down.stdout).toContain('--providers');
    expect(down.stdout).not.toContain('--once');
  });

  it("status and down refuse up's flags instead of ignoring them", async () => {
    const status = await cli('status', '--demo');
    expect(status.status).toBe(2);
    expect(status.stderr).toMatch(/^egress-proxies: status: Unknown option '--demo'/);
    const down = await cli('down', '--providers', 'p.yaml', '--gateway-listen', '0.0.0.0:8080');
    expect(down.status).toBe(2);
    expect(down.stderr).toMatch(/^egress-proxies: down: Unknown option '--gateway-listen'/);
    // What they do take still parses: a misspelt one of them gets its suggestion.
    const typo = await cli('status', '--stat-dir', dir);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain('(did you mean --state-dir?)');
  });

  it('an unknown command or flag is answered with the closest one', async () => {
    const command = await cli('stauts');
    expect(command.status).toBe(2);
    expect(command.stderr).toMatch(/^unknown command "stauts" \(did you mean status\?\)/);
    const flag = await cli('up', '--halp');
    expect(flag.status).toBe(2);
    expect(flag.stderr).toContain("Unknown option '--halp' (did you mean --help?)");
  });

  it('the overall usage lists every command and ends with a newline', async () => {
    const r = await cli('help');
    expect(r.status).toBe(0);
    for (const command of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    expect(r.stdout.endsWith('\n')).toBe(true);
  });

  it.each(COMMANDS)('%s refuses an unknown flag, naming it, with exit 2', async (command) => {
    const r = await cli(...(PREFIX[command] ?? [command]), '--bogus');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("'--bogus'");
    expect(r.stdout).toBe('');
  });

  it('--output json errors are JSON records too', async () => {
    const r = await cli('status', '--state-dir', join(dir, 'none'), '--output', 'json');
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ type: 'error', code: 'NO_STATE' });
    const bad = await cli('status', '--output', 'json', '--workers', 'zero');
    expect(bad.status).toBe(2);
    expect(JSON.parse(bad.stderr)).toMatchObject({ type: 'error', code: 'INVALID_INPUT' });
  });

  it('up --once --output json prints only typed JSON records, nothing on stderr', async () => {
    const providers = join(dir, 'providers.yaml');
    writeFileSync(
      providers,
      '- name: local\n  type: local\n  local: {stateDir: local, engine: node}\n' +
        '- name: squidless\n  type: local\n  local: {stateDir: sl, engine: squid, squidPath: /nonexistent/squid}\n',
    );
    const proxies = join(dir, 'proxies.yaml');
    writeFileSync(
      proxies,
      'apiVersion: egress-proxies.dev/v1alpha1\nkind: Proxy\nmetadata: {name: one}\nspec: {provider: local}\n---\n' +
        'apiVersion: egress-proxies.dev/v1alpha1\nkind: Proxy\nmetadata: {name: bad}\nspec: {provider: local, port: 0}\n',
    );
    const r = await cli(
      'up',
      '-f',
      proxies,
      '--providers',
      providers,
      '--state-dir',
      join(dir, 'state-json'),
      '--demo',
      '--once',
      '--clean',
      '--timeout',
      '90s',
      '--output',
      'json',
    );
    expect(r.stderr).toBe('');
    const records = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string } & Record<string, unknown>);
    for (const rec of records) expect(typeof rec.type).toBe('string');
    const types = new Set(records.map((x) => x.type));
    for (const t of ['issue', 'provider', 'proxy', 'ready', 'check', 'down']) expect(types).toContain(t);
    expect(records.find((x) => x.type === 'provider' && x.name === 'squidless')).toMatchObject({
      ready: false,
    });
    const ready = records.find((x) => x.type === 'proxy' && x.phase === 'Ready');
    expect(ready).toMatchObject({ name: 'one', namespace: 'default', healthy: true, deleting: false });
    expect(records.find((x) => x.type === 'check')).toMatchObject({ ok: true });
    expect(records.find((x) => x.type === 'down')).toMatchObject({ deleted: 1, errors: [] });
    expect(r.status).toBe(0);
  });
});
