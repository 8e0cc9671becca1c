import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from './abort.js';
import { TestEnvError } from './errors.js';
import { freePort } from './free-port.js';
import { descendants, terminate } from './processes.js';
import { probeSocket } from './socket-probe.js';
import { generateKeyPair, type KeyPair, writeKnownHosts } from './ssh-keys.js';

export interface SshEndpoint {
  host: string;
  port: number;
  username: string;
  /** User key (listed in authorized_keys), OpenSSH format. */
  privateKey: Buffer;
  privateKeyPath: string;
  /** `[127.0.0.1]:<port> ssh-ed25519 AAAA...` */
  knownHosts: string;
  knownHostsPath: string;
  /** The same entry hashed by `ssh-keygen -H` (`|1|salt|hash ssh-ed25519 AAAA...`). */
  hashedKnownHosts: string;
  hashedKnownHostsPath: string;
  /** "ssh-ed25519 AAAA..." */
  hostPublicKey: string;
  logPath: string;
  /** The effective sshd_config (for debugging failed tests). */
  configPath: string;
  allowStreamLocalForwarding: boolean;
  allowTcpForwarding: TcpForwarding;
  /** Pid of the listening sshd. */
  pid: number;
  /**
   * Kills established sessions but keeps the listener: killing only the listener leaves every
   * session (a forked child each) alive, so "server went away" tests need this.
   */
  dropConnections(): Promise<void>;
  /** Kills the listener and every session, removes its temp files. Idempotent. */
  stop(): Promise<void>;
}

export type TcpForwarding = 'yes' | 'no' | 'local' | 'remote';

export interface StartSshdOptions {
  /** Default true. */
  allowStreamLocalForwarding?: boolean;
  /** sshd also refuses streamlocal channels when this is `no`; default `yes`. */
  allowTcpForwarding?: TcpForwarding | boolean;
  /** Reuse this host key (e.g. to restart "the same" server); default a fresh ed25519 key. */
  hostKey?: KeyPair;
  /** Reuse this user key; default a fresh ed25519 key. */
  userKey?: KeyPair;
  /** Fixed port; default a free one. */
  port?: number;
  /** Directory for config, keys and logs; default a fresh temp dir removed by stop(). */
  dir?: string;
  signal?: AbortSignal;
}

const SSHD = '/usr/sbin/sshd';
const READY_TIMEOUT_MS = 20_000;
/** Root: libvirtd grants uid 0 access without polkit, and no polkit daemon runs on test hosts. */
const USERNAME = 'root';

function tcpForwarding(v: StartSshdOptions['allowTcpForwarding']): TcpForwarding {
  if (v === undefined || v === true) return 'yes';
  if (v === false) return 'no';
  if (['yes', 'no', 'local', 'remote'].includes(v)) return v;
  throw new TestEnvError(
    'INVALID_ARGUMENT',
    `allowTcpForwarding must be yes|no|local|remote, got ${String(v)}`,
  );
}

function sshdConfig(o: {
  port: number;
  hostKeyPath: string;
  pidFile: string;
  authorizedKeys: string;
  streamLocal: boolean;
  tcp: TcpForwarding;
}): string {
  return [
    `Port ${o.port}`,
    'ListenAddress 127.0.0.1',
    'AddressFamily inet',
    `HostKey ${o.hostKeyPath}`,
    `PidFile ${o.pidFile}`,
    `AuthorizedKeysFile ${o.authorizedKeys}`,
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'UsePAM no',
    'PermitRootLogin prohibit-password',
    `AllowUsers ${USERNAME}`,
    `AllowStreamLocalForwarding ${o.streamLocal ? 'yes' : 'no'}`,
    `AllowTcpForwarding ${o.tcp}`,
    'StrictModes no',
    'X11Forwarding no',
    'PrintMotd no',
    'LogLevel VERBOSE',
    '',
  ].join('\n');
}

/** Resolves once the port sends an SSH banner; false if it does not within `timeoutMs`. */
function bannerArrives(port: number, timeoutMs = 2_000): Promise<boolean> {
  const sock = connect(port, '127.0.0.1');
  let got = '';
  return probeSocket(sock, timeoutMs, (done) => {
    sock.on('data', (c: Buffer) => {
      got += c.toString('latin1');
      if (got.includes('\n')) done(got.startsWith('SSH-2.0-'));
    });
  });
}

function tail(path: string, lines = 20): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Starts a private sshd on 127.0.0.1 that accepts only the returned user key, as root. */
export async function startSshd(opts: StartSshdOptions = {}): Promise<SshEndpoint> {
  const { signal } = opts;
  const streamLocal = opts.allowStreamLocalForwarding ?? true;
  const tcp = tcpForwarding(opts.allowTcpForwarding);
  if (opts.port !== undefined && (!Number.isInteger(opts.port) || opts.port < 1 || opts.port > 65535)) {
    throw new TestEnvError('INVALID_ARGUMENT', `port must be 1-65535, got ${String(opts.port)}`);
  }
  const ownsDir = opts.dir === undefined;
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'ep-sshd-'));
  try {
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o700);
    // sshd refuses to start without its privilege-separation directory.
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    const [hostKey, userKey] = await Promise.all([
      opts.hostKey ?? generateKeyPair(dir, 'host_ed25519', signal),
      opts.userKey ?? generateKeyPair(dir, 'user_ed25519', signal),
    ]);
    const authorizedKeys = join(dir, 'authorized_keys');
    writeFileSync(authorizedKeys, `${userKey.publicKey}\n`, { mode: 0o600 });
    const logPath = join(dir, 'sshd.log');
    const configPath = join(dir, 'sshd_config');
    const pidFile = join(dir, 'sshd.pid');

    let lastError = '';
    for (let attempt = 0; attempt < 5; attempt++) {
      signal?.throwIfAborted();
      const port = opts.port ?? (await freePort());
      writeFileSync(
        configPath,
        sshdConfig({ port, hostKeyPath: hostKey.privateKeyPath, pidFile, authorizedKeys, streamLocal, tcp }),
      );
      rmSync(logPath, { force: true });
      const child = spawn(SSHD, ['-D', '-f', configPath, '-E', logPath], { stdio: 'ignore' });
      // A forgotten stop() must not keep the test process alive; the watchdog ends sshd then.
      child.unref();
      let exited: string | undefined;
      child.once('exit', (code, sig) => {
        exited = sig ? `signal ${sig}` : `exit code ${code}`;
      });
      child.once('error', (e) => {
        exited = e.message;
      });
      const ready = await waitForBanner(port, () => exited, signal).catch(async (e) => {
        child.kill('SIGKILL');
        throw e;
      });
      if (!ready) {
        child.kill('SIGKILL');
        const log = tail(logPath);
        lastError = `sshd ${exited ? `exited (${exited})` : 'did not answer'} on port ${port}:\n${log}`;
        if (opts.port === undefined && /Address already in use/i.test(log)) continue;
        break;
      }
      const knownHostsFiles = await writeKnownHosts(dir, '', '127.0.0.1', port, hostKey.publicKey, signal);
      return endpoint({
        child,
        dir,
        ownsDir,
        port,
        userKey,
        hostKey,
        logPath,
        configPath,
        streamLocal,
        tcp,
        ...knownHostsFiles,
      });
    }
    throw new TestEnvError('SSHD_START_FAILED', lastError);
  } catch (e) {
    if (ownsDir) rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

async function waitForBanner(
  port: number,
  exited: () => string | undefined,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exited() !== undefined) return false;
    if (await bannerArrives(port)) return true;
    await sleep(50, signal);
  }
  return false;
}

function endpoint(p: {
  child: ChildProcess;
  dir: string;
  ownsDir: boolean;
  port: number;
  userKey: KeyPair;
  hostKey: KeyPair;
  logPath: string;
  configPath: string;
  streamLocal: boolean;
  tcp: TcpForwarding;
  knownHosts: string;
  knownHostsPath: string;
  hashedKnownHosts: string;
  hashedKnownHostsPath: string;
}): SshEndpoint {
  const pid = p.child.pid!;
  // If this process dies without stop(), the watchdog sees EOF on stdin and ends the listener.
  const watchdog = spawn('sh', ['-c', 'cat >/dev/null; kill -TERM "$0" 2>/dev/null', String(pid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  watchdog.unref();
  let stopped: Promise<void> | undefined;
  const dropConnections = async () => {
    await terminate(descendants(pid), 5_000);
  };
  const stop = () => {
    stopped ??= (async () => {
      watchdog.kill('SIGKILL');
      // Its `cat` child would otherwise wait for EOF until this process exits.
      watchdog.stdin?.destroy();
      const all = [...descendants(pid), pid];
      await terminate(all, 5_000);
      if (p.ownsDir) rmSync(p.dir, { recursive: true, force: true });
    })();
    return stopped;
  };
  return {
    host: '127.0.0.1',
    port: p.port,
    username: USERNAME,
    privateKey: p.userKey.privateKey,
    privateKeyPath: p.userKey.privateKeyPath,
    knownHosts: p.knownHosts,
    knownHostsPath: p.knownHostsPath,
    hashedKnownHosts: p.hashedKnownHosts,
    hashedKnownHostsPath: p.hashedKnownHostsPath,
    hostPublicKey: p.hostKey.publicKey.split(/\s+/).slice(0, 2).join(' '),
    logPath: p.logPath,
    configPath: p.configPath,
    allowStreamLocalForwarding: p.streamLocal,
    allowTcpForwarding: p.tcp,
    pid,
    dropConnections,
    stop,
  };
}
