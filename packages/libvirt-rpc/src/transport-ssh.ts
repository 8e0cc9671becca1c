import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { ClientChannel, ConnectConfig, Client as SshClient } from 'ssh2';
import type { LibvirtClient } from './client.js';
import { CoalescingSocket } from './coalescing-socket.js';
import { deadline } from './deadline.js';
import {
  SshAuthenticationError,
  SshForwardingRefusedError,
  SshHostKeyMismatchError,
  SshSocketNotFoundError,
  SshUnavailableError,
  SshUnknownHostKeyError,
  TransportError,
} from './errors.js';
import {
  algorithmsForKeyType,
  checkHostKey,
  fingerprint,
  type KnownHostEntry,
  knownHostsName,
  knownKeyTypes,
  parseKnownHosts,
} from './known-hosts.js';
import { type OpenOptions, openLibvirt } from './open.js';
import { DEFAULT_SOCKET_PATH } from './transport-net.js';

/** What a custom host verifier is shown (public data only). */
export interface HostKeyInfo {
  host: string;
  port: number;
  /** Key type, e.g. `ssh-ed25519`. */
  type: string;
  /** The public key blob as sent by the server. */
  key: Buffer;
  /** `SHA256:…` */
  fingerprint: string;
}

export interface SshOptions extends OpenOptions {
  host: string;
  /** Default 22. */
  port?: number;
  username: string;
  /** OpenSSH or PEM private key. Never logged or put in an error. */
  privateKey: string | Buffer;
  passphrase?: string | Buffer;
  /**
   * Host key checking, in order of precedence: `hostVerifier`, `insecureIgnoreHostKey`,
   * `knownHosts` (file contents), `knownHostsPath` (default `~/.ssh/known_hosts`).
   */
  knownHosts?: string;
  knownHostsPath?: string;
  hostVerifier?: (key: HostKeyInfo) => boolean | Promise<boolean>;
  /** Accepts any host key. Only for throwaway test setups. */
  insecureIgnoreHostKey?: boolean;
  /** The daemon socket on the SSH host (default the system daemon's read-write socket). */
  socketPath?: string;
  /** Ciphers offered, most preferred first (default `SSH_CIPHERS`). */
  ciphers?: readonly string[];
  /** Told what the SSH handshake settled on (public data only), e.g. to log the cipher. */
  onHandshake?: (info: SshHandshakeInfo) => void;
}

/** The algorithms an SSH handshake settled on. */
export interface SshHandshakeInfo {
  kex: string;
  hostKey: string;
  /** Cipher client to server (the upload direction). */
  cipherOut: string;
  /** Cipher server to client. */
  cipherIn: string;
}

/**
 * Ciphers offered by default, most preferred first. The AES-GCM ciphers run inside OpenSSL
 * (AES-NI on x86), so they cost the least per byte; chacha20-poly1305 is partly JavaScript in
 * ssh2 without its optional native addon and comes after the AES-CTR fallbacks.
 */
export const SSH_CIPHERS: readonly string[] = Object.freeze([
  'aes128-gcm@openssh.com',
  'aes256-gcm@openssh.com',
  'aes128-ctr',
  'aes192-ctr',
  'aes256-ctr',
  'chacha20-poly1305@openssh.com',
]);

type Ssh2Module = { Client: new () => SshClient };

async function loadSsh2(): Promise<Ssh2Module> {
  try {
    const mod = (await import('ssh2')) as unknown as Ssh2Module & { default?: Ssh2Module };
    const Client = mod.Client ?? mod.default?.Client;
    if (typeof Client !== 'function') throw new Error('ssh2 exports no Client');
    return { Client };
  } catch (err) {
    throw new SshUnavailableError(
      'connectSsh needs the optional peer dependency "ssh2"; install it next to libvirt-rpc-ts',
      { cause: err },
    );
  }
}

function keyTypeOf(blob: Buffer): string {
  if (blob.length < 4) return 'unknown';
  return blob.toString('latin1', 4, 4 + blob.readUInt32BE(0));
}

interface HostCheck {
  algorithms?: string[];
  verify(key: Buffer): Promise<Error | null>;
}

async function hostCheck(options: SshOptions, host: string, port: number): Promise<HostCheck> {
  const { hostVerifier } = options;
  if (hostVerifier) {
    return {
      async verify(key) {
        const info = { host, port, type: keyTypeOf(key), key, fingerprint: fingerprint(key) };
        const ok = await hostVerifier(info);
        return ok
          ? null
          : new SshHostKeyMismatchError(`the host key of ${host}:${port} was rejected by hostVerifier`);
      },
    };
  }
  if (options.insecureIgnoreHostKey) return { verify: async () => null };
  let source: string;
  let text: string;
  if (options.knownHosts !== undefined) {
    source = 'the knownHosts option';
    text = options.knownHosts;
  } else {
    const path = options.knownHostsPath ?? join(homedir(), '.ssh', 'known_hosts');
    source = path;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      throw new SshUnknownHostKeyError(
        `cannot read known_hosts file ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'}); the host key of ${host}:${port} cannot be verified`,
        { cause: err },
      );
    }
  }
  const entries: KnownHostEntry[] = parseKnownHosts(text);
  const types = knownKeyTypes(entries, host, port);
  if (types.length === 0) {
    throw new SshUnknownHostKeyError(
      `host ${knownHostsName(host, port)} is not in ${source}; add its key to known_hosts first`,
    );
  }
  return {
    algorithms: types.flatMap(algorithmsForKeyType),
    async verify(key) {
      const verdict = checkHostKey(entries, host, port, key);
      if (verdict.result === 'ok') return null;
      if (verdict.result === 'revoked') {
        return new SshHostKeyMismatchError(`the host key of ${host}:${port} is marked @revoked in ${source}`);
      }
      return new SshHostKeyMismatchError(
        `HOST KEY MISMATCH for ${knownHostsName(host, port)}: the server presented a ${keyTypeOf(key)} key (${fingerprint(key)}) that does not match ${source}; someone may be intercepting the connection, or the host key changed`,
      );
    },
  };
}

/**
 * Opens an SSH session and reaches the daemon socket through a direct-streamlocal channel
 * (no helper program on the host), then runs the libvirt handshake over it.
 * `ssh2` is loaded only here, so unix-socket users never need it.
 */
export async function connectSsh(options: SshOptions): Promise<LibvirtClient> {
  const { host, username } = options;
  const port = options.port ?? 22;
  const socketPath = options.socketPath ?? DEFAULT_SOCKET_PATH;
  if (typeof host !== 'string' || host === '')
    throw new TransportError(`invalid ssh host ${JSON.stringify(host)}`);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new TransportError(`invalid ssh port ${JSON.stringify(port)}`);
  if (typeof username !== 'string' || username === '') {
    throw new TransportError(`invalid ssh username ${JSON.stringify(username)}`);
  }
  const { ciphers } = options;
  if (
    ciphers !== undefined &&
    (!Array.isArray(ciphers) ||
      ciphers.length === 0 ||
      ciphers.some((c) => typeof c !== 'string' || c === ''))
  ) {
    throw new TransportError(
      `invalid ssh ciphers ${JSON.stringify(ciphers)}: give a non-empty list of names`,
    );
  }
  if (!options.privateKey) throw new SshAuthenticationError('no privateKey given for the ssh connection');
  const target = `${username}@${host}:${port}`;
  const dl = deadline(options, `ssh connection to ${target}`);
  const signal = dl.signal;
  let ssh: SshClient | undefined;
  try {
    signal?.throwIfAborted();
    const check = await hostCheck(options, host, port);
    const { Client } = await loadSsh2();
    const client = new Client();
    ssh = client;
    await sshReady(client, options, check, port, target, signal);
    const channel = await openStreamLocal(client, socketPath, target, signal);
    return await openLibvirt(channel as Duplex, {
      ...options,
      promptAcks: options.promptAcks ?? true,
      signal,
      timeoutMs: undefined,
      onClose: (reason) => {
        client.end();
        options.onClose?.(reason);
      },
    });
  } catch (err) {
    ssh?.end();
    throw err;
  } finally {
    dl.clear();
  }
}

function sshReady(
  client: SshClient,
  options: SshOptions,
  check: HostCheck,
  port: number,
  target: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let hostKeyError: Error | null = null;
    // Every RPC is a small request answered by a small reply: without TCP_NODELAY, Nagle plus
    // delayed ACKs add tens of milliseconds to each sequential call over SSH.
    const sock = new CoalescingSocket();
    sock.setNoDelay(true);
    const done = (err?: unknown) => {
      client.off('ready', onReady);
      client.off('error', onError);
      client.off('close', onClose);
      signal?.removeEventListener('abort', onAbort);
      if (err === undefined) {
        // Later failures surface through the channel; keep a listener so they never crash the process.
        client.on('error', () => undefined);
        resolve();
      } else {
        client.on('error', () => undefined);
        client.end();
        sock.destroy();
        reject(err);
      }
    };
    const onReady = () => done();
    const onError = (err: Error & { level?: string; code?: string }) => {
      if (hostKeyError) return done(hostKeyError);
      if (err.level === 'client-authentication') {
        return done(
          new SshAuthenticationError(
            `the ssh server ${target} refused the private key for user ${options.username}`,
          ),
        );
      }
      if (err.level === 'client-timeout')
        return done(new TransportError(`ssh handshake with ${target} timed out`));
      done(new TransportError(`ssh connection to ${target} failed: ${err.message}`, { cause: err }));
    };
    const onClose = () =>
      done(hostKeyError ?? new TransportError(`ssh connection to ${target} closed during the handshake`));
    const onAbort = () => done(signal?.reason);
    const onHandshake = options.onHandshake;
    client.on('ready', onReady);
    client.on('error', onError);
    client.on('close', onClose);
    if (onHandshake) {
      client.once('handshake', (n) => {
        try {
          onHandshake({
            kex: n.kex,
            hostKey: n.serverHostKey,
            cipherOut: n.cs.cipher,
            cipherIn: n.sc.cipher,
          });
        } catch {
          // A reporting hook must not break the connection.
        }
      });
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    const config: ConnectConfig = {
      sock,
      host: options.host,
      port,
      username: options.username,
      privateKey: options.privateKey,
      ...(options.passphrase !== undefined ? { passphrase: options.passphrase } : {}),
      readyTimeout: 60_000,
      hostVerifier: (key: Buffer, verify: (valid: boolean) => void) => {
        check.verify(key).then(
          (err) => {
            hostKeyError = err;
            verify(err === null);
          },
          (err: unknown) => {
            hostKeyError = err instanceof Error ? err : new Error(String(err));
            verify(false);
          },
        );
      },
      algorithms: {
        cipher: [...(options.ciphers ?? SSH_CIPHERS)] as never,
        ...(check.algorithms ? { serverHostKey: check.algorithms as never } : {}),
      },
    };
    try {
      // Connecting first: ssh2 takes a given socket that is not connecting as connected.
      sock.connect(port, options.host);
      client.connect(config);
    } catch (err) {
      const message = (err as Error).message;
      if (/^Unsupported algorithm/.test(message)) {
        done(new TransportError(`cannot connect to ${target}: ${message} (from the ciphers option)`));
        return;
      }
      // ssh2 throws synchronously for an unreadable key; its message names the problem, never the key.
      done(new SshAuthenticationError(`cannot use the private key: ${message}`));
    }
  });
}

function openStreamLocal(
  client: SshClient,
  socketPath: string,
  target: string,
  signal: AbortSignal | undefined,
): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const onAbort = () => {
      if (settled) return;
      settled = true;
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    client.openssh_forwardOutStreamLocal(socketPath, (err, channel) => {
      signal?.removeEventListener('abort', onAbort);
      if (settled) {
        channel?.destroy();
        return;
      }
      if (!err) {
        settled = true;
        resolve(channel);
        return;
      }
      // sshd answers "open failed" both when forwarding is disabled and when the socket is
      // missing; ask the host over SFTP which one it is.
      socketExists(client, socketPath).then((exists) => {
        settled = true;
        if (exists === false) {
          reject(new SshSocketNotFoundError(`the libvirt socket ${socketPath} does not exist on ${target}`));
        } else {
          reject(
            new SshForwardingRefusedError(
              `${target} refused to forward to the unix socket ${socketPath} (${err.message}). sshd needs AllowStreamLocalForwarding and AllowTcpForwarding set to yes (or local) for this user${exists === null ? '; the socket may also be missing or unreachable' : ''}`,
            ),
          );
        }
      });
    });
  });
}

/**
 * true/false when the host can tell us, null when it cannot. Tries SFTP first, then a
 * `test -e` through exec (a shell builtin, so nothing needs installing on the host).
 */
async function socketExists(client: SshClient, path: string): Promise<boolean | null> {
  const viaSftp = await sftpExists(client, path);
  if (viaSftp !== null) return viaSftp;
  return execExists(client, path);
}

function sftpExists(client: SshClient, path: string): Promise<boolean | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), 5000);
    try {
      client.sftp((err, sftp) => {
        if (err) {
          clearTimeout(timer);
          return resolve(null);
        }
        sftp.stat(path, (statErr) => {
          clearTimeout(timer);
          sftp.end();
          if (!statErr) return resolve(true);
          resolve((statErr as { code?: number }).code === 2 ? false : null);
        });
      });
    } catch {
      clearTimeout(timer);
      resolve(null);
    }
  });
}

function execExists(client: SshClient, path: string): Promise<boolean | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), 5000);
    const quoted = `'${path.replace(/'/g, "'\\''")}'`;
    try {
      client.exec(`test -e ${quoted}`, (err, stream) => {
        if (err) {
          clearTimeout(timer);
          return resolve(null);
        }
        stream.on('close', (code: number | null) => {
          clearTimeout(timer);
          resolve(code === 0 ? true : code === 1 ? false : null);
        });
        stream.resume();
        stream.stderr.resume();
      });
    } catch {
      clearTimeout(timer);
      resolve(null);
    }
  });
}
