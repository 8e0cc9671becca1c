import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestEnvError } from './errors.js';
import { runChecked } from './exec.js';
import { LIBVIRT_SOCKET } from './paths.js';
import { POOL_PREFIX } from './pool.js';
import { generateKeyPair, knownHostsPattern } from './ssh-keys.js';
import { type LibvirtTestEnv, startLibvirtTestEnv } from './testenv.js';

/**
 * Environment variables that point the kvm/kvm2 real-backend suites at your own hypervisor over
 * SSH instead of the local libvirtd. Never set in CI (refused when `CI` is set): a shared runner
 * must not reach anyone's host.
 */
export const REMOTE_ENV_VARS = {
  ssh: 'EGRESS_PROXIES_KVM_TEST_SSH', // user@host[:port]
  key: 'EGRESS_PROXIES_KVM_TEST_SSH_KEY', // the private key file
  knownHosts: 'EGRESS_PROXIES_KVM_TEST_KNOWN_HOSTS', // known_hosts with the host's key
  pool: 'EGRESS_PROXIES_KVM_TEST_POOL', // a pool made for the tests, named ep-test-...
  bridge: 'EGRESS_PROXIES_KVM_TEST_BRIDGE', // a bridge on the host for the test VMs' NICs
  socket: 'EGRESS_PROXIES_KVM_TEST_SOCKET', // optional: libvirtd's socket on the host
} as const;

export interface RemoteHostSettings {
  host: string;
  port: number;
  username: string;
  privateKeyPath: string;
  knownHostsPath: string;
  pool: string;
  bridge: string;
  socketPath: string;
}

const fail = (message: string) => new TestEnvError('INVALID_ARGUMENT', message);

/**
 * The remote host the variables name, or undefined when none is set. Every bad or missing value
 * is refused naming the variable; a pool not named `ep-test-...` is refused so the suites never
 * touch a pool (and its volumes) that was not made for them.
 */
export function remoteHostFromEnv(env: NodeJS.ProcessEnv = process.env): RemoteHostSettings | undefined {
  const v = REMOTE_ENV_VARS;
  if (!env[v.ssh]) return undefined;
  if (env.CI)
    throw fail(`${v.ssh} is set while CI is set: the real suites never reach a user's host from CI`);
  const m = /^([a-z_][a-z0-9_.-]*)@([^\s:@[\]]+|\[[0-9a-fA-F:.]+\])(?::(\d{1,5}))?$/.exec(env[v.ssh] ?? '');
  if (!m) throw fail(`${v.ssh}: expected user@host[:port], got ${JSON.stringify(env[v.ssh])}`);
  const need = (name: string) => {
    const value = env[name];
    if (!value) throw fail(`${name} is required with ${v.ssh}`);
    return value;
  };
  const pool = need(v.pool);
  if (!pool.startsWith(POOL_PREFIX))
    throw fail(
      `${v.pool}: expected a pool made for the tests, named ${POOL_PREFIX}..., got ${JSON.stringify(pool)}`,
    );
  const bridge = need(v.bridge);
  if (!/^[A-Za-z0-9_.-]{1,15}$/.test(bridge))
    throw fail(`${v.bridge}: expected an interface name, got ${JSON.stringify(bridge)}`);
  const port = Number(m[3] ?? 22);
  if (port < 1 || port > 65535) throw fail(`${v.ssh}: port ${port} is out of range`);
  const privateKeyPath = need(v.key);
  const knownHostsPath = need(v.knownHosts);
  for (const [name, path] of [
    [v.key, privateKeyPath],
    [v.knownHosts, knownHostsPath],
  ] as const) {
    try {
      readFileSync(path);
    } catch {
      throw fail(`${name}: cannot read ${JSON.stringify(path)}`);
    }
  }
  return {
    host: (m[2] ?? '').replace(/^\[(.*)\]$/, '$1'),
    port,
    username: m[1] ?? '',
    privateKeyPath,
    knownHostsPath,
    pool,
    bridge,
    socketPath: env[v.socket] || LIBVIRT_SOCKET,
  };
}

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);

/**
 * The environment of the kvm/kvm2 real suites: the host the variables name when they are set,
 * otherwise a local libvirtd behind a private sshd.
 */
export async function startRealSuiteEnv(): Promise<LibvirtTestEnv | RemoteLibvirtTestEnv> {
  const remote = remoteHostFromEnv();
  return remote ? startRemoteLibvirtTestEnv(remote) : startLibvirtTestEnv();
}

/** What the suites need, on a remote host; the faults that need root there are refused. */
export interface RemoteLibvirtTestEnv {
  socketPath: string;
  pool: { name: string };
  bridge: string;
  ssh: RemoteHostSettings & { dropConnections(): Promise<void> };
  otherUserKey: { privateKey: Buffer; privateKeyPath: string };
  wrongKnownHostsPath: string;
  virsh(...args: string[]): Promise<string>;
  createSmallPool(bytes: number): Promise<{ name: string }>;
  restartLibvirtd(): Promise<void>;
  teardown(): Promise<void>;
}

/**
 * The real suites' environment on the host `remoteHostFromEnv` names: virsh runs there over SSH
 * (host key checked), a key the host does not know and a known_hosts with a wrong key are made
 * locally. Restarting libvirtd, dropping SSH sessions and tmpfs pools need root on the host, so
 * they fail loudly, naming the variables to unset to run them locally.
 */
export async function startRemoteLibvirtTestEnv(
  settings = remoteHostFromEnv(),
): Promise<RemoteLibvirtTestEnv> {
  if (!settings) throw fail(`${REMOTE_ENV_VARS.ssh} is not set`);
  const dir = mkdtempSync(join(tmpdir(), 'ep-remote-env-'));
  // The directory holds private keys: a start that fails takes it away again.
  try {
    return await startIn(dir, settings);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

async function startIn(dir: string, s: RemoteHostSettings): Promise<RemoteLibvirtTestEnv> {
  const other = await generateKeyPair(dir, 'other-user');
  const wrongHost = await generateKeyPair(dir, 'wrong-host');
  const wrongKnownHostsPath = join(dir, 'wrong_known_hosts');
  writeFileSync(
    wrongKnownHostsPath,
    `${knownHostsPattern(s.host, s.port)} ${wrongHost.publicKey.split(' ').slice(0, 2).join(' ')}\n`,
  );
  const remoteOnly = (what: string) => async (): Promise<never> => {
    throw fail(
      `${what} needs root on the test host; unset ${REMOTE_ENV_VARS.ssh} to run this test against the local libvirtd`,
    );
  };
  const env: RemoteLibvirtTestEnv = {
    socketPath: s.socketPath,
    pool: { name: s.pool },
    bridge: s.bridge,
    ssh: { ...s, dropConnections: remoteOnly('dropping SSH sessions') },
    otherUserKey: { privateKey: other.privateKey, privateKeyPath: other.privateKeyPath },
    wrongKnownHostsPath,
    virsh: (...args) =>
      runChecked(
        'ssh',
        [
          '-i',
          s.privateKeyPath,
          '-o',
          `UserKnownHostsFile=${s.knownHostsPath}`,
          '-o',
          'StrictHostKeyChecking=yes',
          '-o',
          'BatchMode=yes',
          '-o',
          'IdentitiesOnly=yes',
          '-p',
          String(s.port),
          `${s.username}@${s.host}`,
          '--',
          ['virsh', '-c', 'qemu:///system', ...args].map(shellQuote).join(' '),
        ],
        { timeoutMs: 120_000 },
      ),
    createSmallPool: remoteOnly('a tmpfs pool'),
    restartLibvirtd: remoteOnly('restarting libvirtd'),
    async teardown() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
  // Fail at the start, naming the host, rather than in the first test.
  await env.virsh('pool-info', s.pool).catch((err: unknown) => {
    throw fail(
      `the test host ${s.username}@${s.host}:${s.port} or its pool ${s.pool} is not usable: ${err instanceof Error ? err.message : String(err)}`,
    );
  });
  return env;
}
