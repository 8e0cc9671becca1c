import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { buildSecret, printSecret } from './secret-command.js';
import { SECRET_MOUNTS } from './secret-usage.js';

const dir = mkdtempSync(join(tmpdir(), 'ep-secret-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const root = join(__dirname, '..', '..', '..', '..');
const SENTINEL = 'sentinel-9f3b2c';

const file = (name: string, text: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', SENTINEL, '-f', join(dir, 'id')]);
const key = join(dir, 'id');
const knownHosts = file(
  'known_hosts',
  `[nas1.home.lan]:22 ${readFileSync(join(dir, 'id.pub'), 'utf8').split(' ').slice(0, 2).join(' ')}\n`,
);
const token = file('token', `proxies@pve!operator=${SENTINEL}-0000-4000-8000-000000000000\n`);
execFileSync('openssl', [
  'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
  '-subj', '/CN=pve', '-keyout', join(dir, 'ca.key'), '-out', join(dir, 'ca.crt'),
], { stdio: 'ignore' }); // biome-ignore format: one command line
const ca = join(dir, 'ca.crt');
const saKey = file(
  'sa.json',
  JSON.stringify({
    type: 'service_account',
    client_email: 'proxies@p.iam.gserviceaccount.com',
    private_key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }),
    private_key_id: SENTINEL,
  }),
);

async function printed(args: string[]) {
  let out = '';
  let err = '';
  const code = await printSecret(args, { out: (t) => (out += t), err: (t) => (err += t) });
  return {
    code,
    out,
    err,
    secret: parse(out) as { metadata: Record<string, string>; data: Record<string, string> },
  };
}
const decoded = (data: Record<string, string>, k: string) => Buffer.from(data[k] ?? '', 'base64');

describe('egress-proxies secret', () => {
  it('kvm-ssh: the key and known_hosts under the names the manifests mount, byte for byte', async () => {
    const r = await printed(['kvm-ssh', '--key', key, '--known-hosts', knownHosts]);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.secret).toMatchObject({ apiVersion: 'v1', kind: 'Secret', type: 'Opaque' });
    expect(r.secret.metadata).toMatchObject({ name: 'kvm-ssh', namespace: 'egress-proxies-system' });
    expect(Object.keys(r.secret.data).sort()).toEqual(['id_ed25519', 'known_hosts']);
    expect(decoded(r.secret.data, 'id_ed25519').equals(readFileSync(key))).toBe(true);
    expect(decoded(r.secret.data, 'known_hosts').equals(readFileSync(knownHosts))).toBe(true);
    expect(r.out).toContain('/etc/egress-proxies/secrets/kvm/id_ed25519');
  });

  it('proxmox-token with --ca, and gcp-key, with --name and --namespace', async () => {
    const p = await printed(['proxmox-token', '--token-file', token, '--ca', ca, '--namespace', 'ops']);
    expect(p.secret.metadata).toMatchObject({ name: 'proxmox-token', namespace: 'ops' });
    expect(Object.keys(p.secret.data).sort()).toEqual(['ca.crt', 'token']);
    expect(decoded(p.secret.data, 'token').equals(readFileSync(token))).toBe(true);
    const g = await printed(['gcp-key', '--key', saKey, '--name', 'gcp-eu']);
    expect(g.secret.metadata.name).toBe('gcp-eu');
    expect(Object.keys(g.secret.data)).toEqual(['key.json']);
  });

  it('every file a providers config sample names is a key of the Secret mounted there', async () => {
    // One set of paths everywhere: the samples' files = mount path + a key this command writes.
    const keys: Record<string, string[]> = {
      [SECRET_MOUNTS['kvm-ssh'].mountPath]: ['id_ed25519', 'known_hosts'],
      [SECRET_MOUNTS['proxmox-token'].mountPath]: ['token', 'ca.crt'],
      [SECRET_MOUNTS['gcp-key'].mountPath]: ['key.json'],
    };
    const sample = readFileSync(join(root, 'config/samples/providers-config.yaml'), 'utf8');
    const paths = [...sample.matchAll(/(?:File|caFile): (\/etc\/egress-proxies\/secrets\/\S+)/g)].map(
      (m) => m[1] as string,
    );
    expect(paths.length).toBeGreaterThanOrEqual(4);
    for (const path of paths) {
      const mount = path.slice(0, path.lastIndexOf('/'));
      expect(keys[mount], path).toContain(path.slice(mount.length + 1));
    }
    // ...and the manifests and the chart mount each Secret at that path.
    for (const manifest of ['config/manager/manager.yaml', 'chart/templates/deployment.yaml']) {
      const text = readFileSync(join(root, manifest), 'utf8');
      for (const mount of Object.keys(keys)) expect(text, manifest).toContain(`mountPath: ${mount}\n`);
    }
    const manager = parseAllDocuments(readFileSync(join(root, 'config/manager/manager.yaml'), 'utf8'))
      .map((d) => d.toJSON())
      .find((d) => d?.kind === 'Deployment');
    const volumes = manager.spec.template.spec.volumes as { secret?: { secretName: string } }[];
    const names = volumes.flatMap((v) => (v.secret ? [v.secret.secretName] : []));
    expect(names.sort()).toEqual(
      Object.values(SECRET_MOUNTS)
        .map((m) => m.secretName)
        .sort(),
    );
  });

  it('names the flag, the file and what was expected, never the content', async () => {
    const cases: [string[], string][] = [
      [
        ['kvm-ssh', '--key', knownHosts, '--known-hosts', knownHosts],
        `--key: "${knownHosts}" is not an SSH private key`,
      ],
      [
        ['kvm-ssh', '--key', key, '--known-hosts', token],
        `--known-hosts: "${token}" is not known_hosts lines`,
      ],
      [
        ['proxmox-token', '--token-file', ca],
        `--token-file: "${ca}" is not one line USER@REALM!TOKENID=SECRET`,
      ],
      [['proxmox-token', '--token-file', token, '--ca', token], `--ca: "${token}" is not PEM certificates`],
      [['gcp-key', '--key', key], `--key: "${key}" is not a service-account JSON key`],
      [
        ['gcp-key', '--key', join(dir, 'missing.json')],
        `--key: cannot read "${join(dir, 'missing.json')}" (ENOENT)`,
      ],
      [['kvm-ssh', '--key', key], 'secret kvm-ssh: --known-hosts FILE is required'],
      [['gcp-key', '--key', saKey, '--ca', ca], 'secret gcp-key: --ca does not apply to gcp-key'],
      [['ssh'], 'secret: expected a kind (kvm-ssh, proxmox-token, gcp-key), got "ssh"'],
      [['gcp-key', '--key', saKey, '--name', 'Bad_Name'], '--name: expected a Secret name'],
      [['gcp-key', '--key', saKey, '--kubeconfig', 'k'], '--kubeconfig applies only with --apply'],
    ];
    for (const [args, message] of cases) {
      const err = await buildSecret(args).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message, args.join(' ')).toContain(message);
      expect(err?.message).not.toContain(SENTINEL);
      expect(err?.message).not.toContain('PRIVATE KEY');
    }
  });

  it('kvm-ssh refuses a key behind a passphrase, with the ssh-keygen line that removes it', async () => {
    // The forms ssh-keygen and openssl write: OpenSSH, legacy PEM (Proc-Type) and PKCS#8.
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'pass phrase', '-f', join(dir, 'locked')]);
    execFileSync('ssh-keygen', [
      '-q',
      '-t',
      'rsa',
      '-b',
      '1024',
      '-m',
      'PEM',
      '-N',
      'pw-12345',
      '-f',
      join(dir, 'locked-pem'),
    ]);
    const pkcs8 = file(
      'locked p8',
      generateKeyPairSync('ed25519').privateKey.export({
        type: 'pkcs8',
        format: 'pem',
        cipher: 'aes-256-cbc',
        passphrase: 'pw',
      }),
    );
    for (const locked of [join(dir, 'locked'), join(dir, 'locked-pem'), pkcs8]) {
      const err = await buildSecret(['kvm-ssh', '--key', locked, '--known-hosts', knownHosts]).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message, locked).toContain(`--key: "${locked}" is protected by a passphrase`);
      const quoted = locked.includes(' ') ? `'${locked}'` : locked;
      expect(err?.message).toContain(`ssh-keygen -p -N '' -f ${quoted}`);
    }
    // The line it prints works: after it, the same key is taken.
    execFileSync('ssh-keygen', ['-p', '-P', 'pass phrase', '-N', '', '-f', join(dir, 'locked')], {
      stdio: 'ignore',
    });
    const { secret } = await buildSecret([
      'kvm-ssh',
      '--key',
      join(dir, 'locked'),
      '--known-hosts',
      knownHosts,
    ]);
    expect(Buffer.from(secret.data.id_ed25519 as string, 'base64')).toEqual(
      readFileSync(join(dir, 'locked')),
    );
  });

  it('--apply without any kubeconfig says what is missing', async () => {
    const saved = { ...process.env };
    process.env.HOME = dir;
    delete process.env.KUBECONFIG;
    delete process.env.KUBERNETES_SERVICE_HOST;
    try {
      await expect(printed(['gcp-key', '--key', saKey, '--apply'])).rejects.toThrow(
        `no kubeconfig: pass --kubeconfig PATH, set $KUBECONFIG, or create ${join(dir, '.kube', 'config')}`,
      );
    } finally {
      process.env = saved;
    }
  });
});
