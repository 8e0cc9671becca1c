import { readFile } from 'node:fs/promises';
import { FlagError } from './flag-error.js';

/**
 * Reads one credential file for a Secret and checks its shape. Every error names the flag, the
 * file and what was expected, and never quotes the content: it is a secret.
 */
export async function readCredential(
  flag: string,
  path: string,
  expected: string,
  valid: (text: string) => boolean,
  signal?: AbortSignal,
): Promise<Buffer> {
  let data: Buffer;
  try {
    data = await readFile(path, signal ? { signal } : {});
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new FlagError(`${flag}: cannot read ${JSON.stringify(path)} (${code})`);
  }
  if (!valid(data.toString('utf8')))
    throw new FlagError(`${flag}: ${JSON.stringify(path)} is not ${expected}`);
  return data;
}

const PRIVATE_KEY =
  /^-----BEGIN ((OPENSSH|RSA|EC|DSA) )?PRIVATE KEY-----\r?\n[\s\S]+\r?\n-----END ((OPENSSH|RSA|EC|DSA) )?PRIVATE KEY-----\s*$/;
// `host[,host] keytype base64` or `@cert-authority`/`@revoked` forms; comments and blank lines allowed.
const KNOWN_HOST = /^(@\S+\s+)?\S+\s+(ssh-|ecdsa-|sk-)\S+\s+[A-Za-z0-9+/=]+(\s.*)?$/;
const TOKEN = /^[^\s@!=]+@[^\s@!=]+![A-Za-z0-9][A-Za-z0-9._-]*=[^\s=]\S*$/;
const CERT = /^\s*(-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----\s*)+$/;

export const isPrivateKey = (t: string) => PRIVATE_KEY.test(t.trim());

export function isKnownHosts(t: string): boolean {
  const lines = t.split('\n').filter((l) => l.trim() && !l.trimStart().startsWith('#'));
  return lines.length > 0 && lines.every((l) => KNOWN_HOST.test(l.trim()));
}

export const isProxmoxToken = (t: string) => TOKEN.test(t.trim());
export const isPemCertificates = (t: string) => CERT.test(t);

export function isServiceAccountKey(t: string): boolean {
  try {
    const k = JSON.parse(t) as Record<string, unknown>;
    return (
      k.type === 'service_account' &&
      typeof k.client_email === 'string' &&
      typeof k.private_key === 'string' &&
      isPrivateKey(k.private_key)
    );
  } catch {
    return false;
  }
}

const ENCRYPTED_PKCS8 =
  /^-----BEGIN ENCRYPTED PRIVATE KEY-----\r?\n[\s\S]+\r?\n-----END ENCRYPTED PRIVATE KEY-----\s*$/;
const OPENSSH_MAGIC = 'openssh-key-v1\0';

/**
 * Whether a private key needs a passphrase to use: the provider connects unattended and cannot
 * enter one. OpenSSH keys name their cipher ("none" when unprotected) right after the magic; PEM
 * keys say so in a `Proc-Type: 4,ENCRYPTED` header or as an ENCRYPTED PRIVATE KEY (PKCS#8).
 */
export function isPassphraseProtected(t: string): boolean {
  const text = t.trim();
  if (ENCRYPTED_PKCS8.test(text)) return true;
  if (/^Proc-Type:\s*4,ENCRYPTED/m.test(text)) return true;
  const body =
    /^-----BEGIN OPENSSH PRIVATE KEY-----\r?\n([\s\S]+?)\r?\n-----END OPENSSH PRIVATE KEY-----$/.exec(
      text,
    )?.[1];
  if (!body) return false;
  const bytes = Buffer.from(body.replace(/\s+/g, ''), 'base64');
  if (bytes.subarray(0, OPENSSH_MAGIC.length).toString('latin1') !== OPENSSH_MAGIC) return false;
  const at = OPENSSH_MAGIC.length;
  if (bytes.length < at + 4) return false;
  const len = bytes.readUInt32BE(at);
  return bytes.subarray(at + 4, at + 4 + len).toString('latin1') !== 'none';
}

/** A private key in any form, protected or not (whether it is protected is checked apart). */
export const isAnyPrivateKey = (t: string) => isPrivateKey(t) || ENCRYPTED_PKCS8.test(t.trim());
