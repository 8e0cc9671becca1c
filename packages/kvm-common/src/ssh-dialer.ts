import { ErrorCode, transientError } from '@egress-proxies/contract';
import type { BackendCallOptions, Dialer, KvmBackend } from './backend.js';
import { type KvmConfig, type KvmHost, splitAddress } from './config.js';
import { type Budgets, DEFAULT_BUDGETS, LibvirtBackend } from './libvirt-backend.js';
import { loadRpc } from './rpc-module.js';

export interface SshCredentials {
  privateKey: Buffer;
  /** known_hosts contents; undefined with insecureIgnoreHostKey. */
  knownHosts?: string;
}

async function readCredential(path: string, what: string): Promise<Buffer> {
  try {
    // node:fs/promises, fetched on use: importing the package does not load it.
    return await process.getBuiltinModule('node:fs/promises').readFile(path);
  } catch (err) {
    // A mounted Secret may not be there yet; retrying can help, so this is Transient.
    throw transientError(
      `cannot read the ${what} file ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      { code: ErrorCode.CredentialsUnavailable },
    );
  }
}

/** Reads the key and known_hosts afresh: called on every dial, so rotated files need no restart. */
export async function loadCredentials(config: KvmConfig): Promise<SshCredentials> {
  const privateKey = await readCredential(config.sshKeyFile, 'SSH key');
  if (config.insecureIgnoreHostKey || !config.knownHostsFile) return { privateKey };
  const knownHosts = (await readCredential(config.knownHostsFile, 'known_hosts')).toString('utf8');
  return { privateKey, knownHosts };
}

/**
 * The production dialer: SSH to the host with the configured key, forward the libvirt socket
 * over a direct-streamlocal channel, and speak libvirt's RPC over it.
 */
export function sshDialer(config: KvmConfig, budgets: Budgets = DEFAULT_BUDGETS): Dialer {
  return {
    async dial(host: KvmHost, o: BackendCallOptions = {}): Promise<KvmBackend> {
      const creds = await loadCredentials(config);
      const { host: address, port } = splitAddress(host.address);
      const { connectSsh } = await loadRpc();
      const client = await connectSsh({
        host: address,
        port,
        username: host.user,
        privateKey: creds.privateKey,
        ...(creds.knownHosts !== undefined
          ? { knownHosts: creds.knownHosts }
          : { insecureIgnoreHostKey: true }),
        socketPath: host.socket,
        keepalive: { intervalMs: 15_000, count: 3 },
        timeoutMs: budgets.dialMs,
        ...(o.signal ? { signal: o.signal } : {}),
      });
      return new LibvirtBackend(client, budgets);
    },
  };
}
