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
