import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runChecked } from './exec.js';

export interface KeyPair {
  privateKey: Buffer;
  privateKeyPath: string;
  /** One line, "ssh-ed25519 AAAA... comment". */
  publicKey: string;
  publicKeyPath: string;
}

/** An unencrypted ed25519 key pair in OpenSSH format, written to `dir/name` and `dir/name.pub`. */
export async function generateKeyPair(dir: string, name: string, signal?: AbortSignal): Promise<KeyPair> {
  const privateKeyPath = join(dir, name);
  await runChecked(
    'ssh-keygen',
    ['-q', '-t', 'ed25519', '-N', '', '-C', `testenv-${name}`, '-f', privateKeyPath],
    {
      signal,
    },
  );
  return {
    privateKey: readFileSync(privateKeyPath),
    privateKeyPath,
    publicKey: readFileSync(`${privateKeyPath}.pub`, 'utf8').trim(),
    publicKeyPath: `${privateKeyPath}.pub`,
  };
}

/** "ssh-ed25519 AAAA..." without the trailing comment. */
export function stripComment(publicKey: string): string {
  return publicKey.split(/\s+/).slice(0, 2).join(' ');
}

/** The known_hosts host pattern OpenSSH uses: bare host on port 22, `[host]:port` otherwise. */
export function knownHostsPattern(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

export interface KnownHostsFiles {
  knownHosts: string;
  knownHostsPath: string;
  hashedKnownHosts: string;
  hashedKnownHostsPath: string;
}

/** Writes a plain and a hashed (`ssh-keygen -H`) known_hosts file for one host key. */
export async function writeKnownHosts(
  dir: string,
  prefix: string,
  host: string,
  port: number,
  hostPublicKey: string,
  signal?: AbortSignal,
): Promise<KnownHostsFiles> {
  const knownHosts = `${knownHostsPattern(host, port)} ${stripComment(hostPublicKey)}\n`;
  const knownHostsPath = join(dir, `${prefix}known_hosts`);
  writeFileSync(knownHostsPath, knownHosts);
  const hashedKnownHostsPath = join(dir, `${prefix}known_hosts.hashed`);
  writeFileSync(hashedKnownHostsPath, knownHosts);
  // Hashes in place and keeps the original as <file>.old.
  await runChecked('ssh-keygen', ['-q', '-H', '-f', hashedKnownHostsPath], { signal });
  const hashedKnownHosts = readFileSync(hashedKnownHostsPath, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
    .map((l) => `${l}\n`)
    .join('');
  writeFileSync(hashedKnownHostsPath, hashedKnownHosts);
  return { knownHosts, knownHostsPath, hashedKnownHosts, hashedKnownHostsPath };
}
