import { stringify } from 'yaml';
import { FlagError } from './flag-error.js';
import { FlagReader } from './flag-reader.js';
import { RUN_WORDING } from './run-flags.js';
import type { SecretManifest } from './secret-apply.js';
import {
  isAnyPrivateKey,
  isKnownHosts,
  isPassphraseProtected,
  isPemCertificates,
  isProxmoxToken,
  isServiceAccountKey,
  readCredential,
} from './secret-files.js';
import { SECRET_MOUNTS, SECRET_OPTIONS, SECRET_USAGE, type SecretKind } from './secret-usage.js';

export interface SecretIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const KINDS = Object.keys(SECRET_MOUNTS) as SecretKind[];
const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Which flags each kind takes: another kind's flag is refused rather than ignored. */
const KIND_FLAGS: Record<SecretKind, { required: string[]; optional: string[] }> = {
  'kvm-ssh': { required: ['key', 'known-hosts'], optional: [] },
  'proxmox-token': { required: ['token-file'], optional: ['ca'] },
  'gcp-key': { required: ['key'], optional: [] },
};
const COMMON = ['name', 'namespace', 'apply', 'kubeconfig'];

/**
 * The SSH key for a kvm-ssh Secret. One behind a passphrase is refused here, with the command
 * that removes it: the provider connects unattended and would only fail later, on the host.
 */
async function unprotectedKey(path: string, signal?: AbortSignal): Promise<Buffer> {
  const key = await readCredential(
    '--key',
    path,
    'an SSH private key (PEM or OpenSSH format)',
    isAnyPrivateKey,
    signal,
  );
  if (isPassphraseProtected(key.toString('utf8')))
    throw new FlagError(
      `--key: ${JSON.stringify(path)} is protected by a passphrase, which the provider cannot enter; ` +
        `remove it (on a copy if the original must keep it) with: ssh-keygen -p -N '' -f ${shellQuote(path)}`,
    );
  return key;
}

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);

/** The Secret's key -> the file's bytes, each file checked for its shape first. */
async function secretData(
  kind: SecretKind,
  r: FlagReader,
  signal?: AbortSignal,
): Promise<Record<string, Buffer>> {
  const path = (flag: string) => r.string(flag) as string;
  switch (kind) {
    case 'kvm-ssh':
      return {
        id_ed25519: await unprotectedKey(path('key'), signal),
        known_hosts: await readCredential(
          '--known-hosts',
          path('known-hosts'),
          'known_hosts lines ("host keytype base64key", as ssh-keyscan prints)',
          isKnownHosts,
          signal,
        ),
      };
    case 'proxmox-token': {
      const token = await readCredential(
        '--token-file',
        path('token-file'),
        'one line USER@REALM!TOKENID=SECRET',
        isProxmoxToken,
        signal,
      );
      const ca = r.string('ca');
      return {
        token,
        ...(ca
          ? {
              'ca.crt': await readCredential(
                '--ca',
                ca,
                'PEM certificates (-----BEGIN CERTIFICATE-----)',
                isPemCertificates,
                signal,
              ),
            }
          : {}),
      };
    }
    case 'gcp-key':
      return {
        'key.json': await readCredential(
          '--key',
          path('key'),
          'a service-account JSON key (type "service_account" with client_email and private_key)',
          isServiceAccountKey,
          signal,
        ),
      };
  }
}

/** Builds the Secret a credential kind needs; throws FlagError naming the bad flag or file. */
export async function buildSecret(
  args: string[],
  signal?: AbortSignal,
): Promise<{ secret: SecretManifest; apply: boolean; kubeconfig?: string }> {
  const [kind, ...rest] = args;
  if (!kind || !KINDS.includes(kind as SecretKind))
    throw new FlagError(
      `secret: expected a kind (${KINDS.join(', ')}), got ${kind === undefined ? 'none' : JSON.stringify(kind)}`,
    );
  const k = kind as SecretKind;
  const r = new FlagReader(rest, SECRET_OPTIONS, RUN_WORDING, `secret ${k}`);
  const allowed = new Set([...KIND_FLAGS[k].required, ...KIND_FLAGS[k].optional, ...COMMON]);
  for (const flag of Object.keys(r.values))
    if (!allowed.has(flag)) throw new FlagError(`secret ${k}: --${flag} does not apply to ${k}`);
  for (const flag of KIND_FLAGS[k].required)
    if (!r.string(flag)) throw new FlagError(`secret ${k}: --${flag} FILE is required`);
  const name = r.string('name') ?? SECRET_MOUNTS[k].secretName;
  if (!NAME.test(name))
    throw new FlagError(
      `--name: expected a Secret name (lower-case DNS subdomain), got ${JSON.stringify(name)}`,
    );
  const namespace = r.string('namespace') ?? 'egress-proxies-system';
  if (!NAMESPACE.test(namespace))
    throw new FlagError(
      `--namespace: expected a namespace name (lower-case DNS label), got ${JSON.stringify(namespace)}`,
    );
  const data = await secretData(k, r, signal);
  const kubeconfig = r.string('kubeconfig');
  if (kubeconfig && !r.boolean('apply')) throw new FlagError('--kubeconfig applies only with --apply');
  return {
    secret: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace, labels: { 'app.kubernetes.io/part-of': 'egress-proxies' } },
      type: 'Opaque',
      data: Object.fromEntries(Object.entries(data).map(([key, v]) => [key, v.toString('base64')])),
    },
    apply: r.boolean('apply'),
    ...(kubeconfig ? { kubeconfig } : {}),
  };
}

/** `egress-proxies secret KIND ...`: prints the Secret as YAML, or applies it. */
export async function printSecret(args: string[], io: SecretIo, signal?: AbortSignal): Promise<number> {
  const { secret, apply, kubeconfig } = await buildSecret(args, signal);
  const kind = args[0] as SecretKind;
  const where = SECRET_MOUNTS[kind].mountPath;
  if (apply) {
    // client-node takes a while to load; only --apply needs it.
    const { applySecret } = await import('./secret-apply.js');
    const verb = await applySecret(secret, kubeconfig, signal);
    // Names only: the content is the secret.
    io.err(
      `secret ${secret.metadata.namespace}/${secret.metadata.name} ${verb} (keys ${Object.keys(secret.data).join(', ')})\n`,
    );
    return 0;
  }
  const files = Object.keys(secret.data)
    .map((key) => `${where}/${key}`)
    .join(', ');
  io.out(`# Mounted by the operator's manifests and chart as ${files}.\n${stringify(secret)}`);
  return 0;
}

export { SECRET_USAGE };
