import { readFile, stat } from 'node:fs/promises';
import { ErrorCode, permanentError, Secret, transientError } from '@egress-proxies/contract';

// PVEAPIToken=USER@REALM!TOKENID=SECRET (reference §1). The split is at the last `=`.
const TOKEN_RE = /^[^\s@!=]+@[^\s@!=]+![A-Za-z0-9][A-Za-z0-9._-]*=[^\s=][^\s]*$/;

export interface Token {
  /** `user@realm!tokenid`: safe to log. */
  id: string;
  /** The full header value, revealed only where the request is built. */
  header: Secret<string>;
}

/**
 * Reads the token file on every call, so a rotated token is used at once. A missing file is
 * Transient (a Secret may still be mounting); a malformed one Permanent. Neither error quotes the
 * file's content.
 */
export async function readToken(file: string): Promise<Token> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'unknown';
    throw transientError(`token file ${JSON.stringify(file)} is unreadable (${code})`, {
      code: ErrorCode.CredentialsUnavailable,
    });
  }
  const v = text.trim();
  if (!TOKEN_RE.test(v)) {
    // Permanent until the file changes (the operator watches it); not CREDENTIALS_UNAVAILABLE,
    // which names a missing file and is Transient.
    throw permanentError(`token file ${JSON.stringify(file)} does not hold USER@REALM!TOKENID=SECRET`, {
      code: ErrorCode.InvalidConfig,
    });
  }
  return { id: v.slice(0, v.lastIndexOf('=')), header: new Secret(`PVEAPIToken=${v}`) };
}

/** The CA bundle, re-read when the file's identity (inode, size, mtime) changes. */
export class CaFile {
  #key = '';
  #pem: string | undefined;
  constructor(readonly file: string) {}

  /** Returns the PEM and whether it changed since the last call. */
  async load(): Promise<{ pem: string; changed: boolean }> {
    let key: string;
    try {
      const s = await stat(this.file);
      key = `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'unknown';
      throw transientError(`CA file ${JSON.stringify(this.file)} is unreadable (${code})`, {
        code: ErrorCode.CertificateInvalid,
      });
    }
    if (key === this.#key && this.#pem !== undefined) return { pem: this.#pem, changed: false };
    const pem = await readFile(this.file, 'utf8').catch((err: { code?: string }) => {
      throw transientError(`CA file ${JSON.stringify(this.file)} is unreadable (${err.code ?? 'unknown'})`, {
        code: ErrorCode.CertificateInvalid,
      });
    });
    if (!/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.test(pem)) {
      throw permanentError(`CA file ${JSON.stringify(this.file)} holds no PEM certificate`, {
        code: ErrorCode.CertificateInvalid,
      });
    }
    const changed = this.#pem !== undefined;
    this.#key = key;
    this.#pem = pem;
    return { pem, changed };
  }
}
