import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@egress-proxies/provider-utils';
import { loadProvidersConfig } from '@egress-proxies/provider-utils/providers-file';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { bundledRegistry } from '../src/providers/bundled.js';
import { MAIN } from './support/run-cli.js';

// The setup guides under docs/guides are checked by running what they show: every `sh check`
// block runs here (the credential helpers on sample files, kubectl/helm renders) and every file it
// writes must be Kubernetes objects; every `yaml providers-config` block must pass the loader and
// build with the bundled providers. Blocks that need a real host, cloud or cluster are plain `sh`.
const ROOT = join(__dirname, '..', '..', '..');
const GUIDES = join(ROOT, 'docs', 'guides');
const dir = mkdtempSync(join(tmpdir(), 'ep-guides-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Block {
  guide: string;
  info: string;
  body: string;
  line: number;
}

function blocks(): Block[] {
  const out: Block[] = [];
  for (const guide of readdirSync(GUIDES).filter((f) => f.endsWith('.md'))) {
    const lines = readFileSync(join(GUIDES, guide), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const open = /^```(.*)$/.exec(lines[i] ?? '');
      if (!open) continue;
      const body: string[] = [];
      let j = i + 1;
      while (j < lines.length && lines[j] !== '```') body.push(lines[j++] ?? '');
      out.push({ guide, info: (open[1] ?? '').trim(), body: body.join('\n'), line: i + 1 });
      i = j;
    }
  }
  return out;
}
const all = blocks();
const commands = all.filter((b) => b.info === 'sh check');
const configs = all.filter((b) => b.info === 'yaml providers-config');
const where = (b: Block) => `docs/guides/${b.guide}:${b.line}`;

/** The files the guides' commands read, as a user would have them, and the tools on PATH. */
beforeAll(() => {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'id_ed25519')]);
  const pub = readFileSync(join(dir, 'id_ed25519.pub'), 'utf8').split(' ').slice(0, 2).join(' ');
  writeFileSync(join(dir, 'known_hosts'), `nas1.home.lan ${pub}\n`);
  writeFileSync(join(dir, 'token'), 'egress@pve!operator=0f8fad5b-d9cb-469f-a165-70867728950e\n');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=pve'].concat([
      '-keyout',
      join(dir, 'pve-root-ca.key'),
      '-out',
      join(dir, 'pve-root-ca.pem'),
    ]),
    { stdio: 'ignore' },
  );
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(
    join(dir, 'sa-key.json'),
    JSON.stringify({
      type: 'service_account',
      client_email: 'egress-proxies@my-proxies-project.iam.gserviceaccount.com',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
    }),
  );
  for (const d of ['config', 'chart']) symlinkSync(join(ROOT, d), join(dir, d));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'egress-proxies'), `#!/bin/sh\nexec "${process.execPath}" "${MAIN}" "$@"\n`);
  chmodSync(join(bin, 'egress-proxies'), 0o755);
  // Built from its Go module once per machine (cached), as the chart tests do.
  const helm = execFileSync('bash', [join(__dirname, '..', 'scripts', 'ensure-helm.sh')], {
    encoding: 'utf8',
  }).trim();
  symlinkSync(helm, join(bin, 'helm'));
}, 20 * 60_000);

describe('the setup guides', () => {
  it('each backend guide shows a runnable command and a providers config', () => {
    for (const g of ['kvm-host.md', 'proxmox.md', 'gcp.md', 'kubernetes.md']) {
      expect(
        commands.some((b) => b.guide === g),
        `${g} has no 'sh check' block`,
      ).toBe(true);
      expect(
        configs.some((b) => b.guide === g),
        `${g} has no 'yaml providers-config' block`,
      ).toBe(true);
    }
  });

  it.each(commands.map((b) => [where(b), b] as const))(
    '%s runs here and writes Kubernetes objects',
    (_, b) => {
      // --norc: bash run with a socket for stdin (as Node's pipes are) reads the system bashrc
      // unless told not to, and a bashrc written for prompts fails under -u.
      const r = spawnSync('bash', ['--norc', '--noprofile', '-euo', 'pipefail', '-c', b.body], {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
        encoding: 'utf8',
        env: { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}` },
        timeout: 5 * 60_000,
      });
      expect(r.stderr, where(b)).toBe('');
      expect(r.status, `${where(b)}: ${r.stderr}`).toBe(0);
      const written = [...b.body.matchAll(/>\s*(\S+\.ya?ml)/g)].map((m) => m[1] as string);
      expect(written.length, `${where(b)} writes no YAML`).toBeGreaterThan(0);
      for (const file of written) {
        const objects = parseAllDocuments(readFileSync(join(dir, file), 'utf8'))
          .map((d) => d.toJS() as { apiVersion?: string; kind?: string } | null)
          .filter((o) => o !== null);
        expect(objects.length, file).toBeGreaterThan(0);
        for (const o of objects)
          expect(o, file).toMatchObject({ apiVersion: expect.any(String), kind: expect.any(String) });
      }
    },
  );

  it.each(configs.map((b) => [where(b), b] as const))('%s passes the loader and builds', async (_, b) => {
    const registry = await bundledRegistry();
    const entries = loadProvidersConfig(b.body, { registry });
    expect(entries.length).toBeGreaterThan(0);
    const built = registry.createAll(entries, {
      logger: createLogger({ verbosity: 0, sink: () => {} }),
    });
    expect(built.map((x) => x.provider.name)).toEqual(entries.map((e) => e.name));
  });
});
