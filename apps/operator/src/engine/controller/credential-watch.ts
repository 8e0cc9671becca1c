import { credentialDigest } from '../../providers/fingerprint.js';
import type { ProviderHandle } from '../reconcile/types.js';

interface Seen {
  files: string;
  digest: string;
}

/**
 * Digests of each provider's credential files, re-read on an interval: a latched Permanent
 * failure (AUTH_FAILED, HOST_KEY_REJECTED, CERTIFICATE_INVALID) records the digest it failed
 * with, and a changed digest (a rotated Secret mounted as a file) releases it. Passes read the
 * cached digest, so a latched Proxy costs no file read per pass.
 */
export class CredentialWatch {
  readonly #seen = new Map<string, Seen>();

  constructor(
    private readonly providers: { get(name: string): ProviderHandle | undefined; names(): string[] },
    private readonly onChange: (providers: string[]) => void,
  ) {}

  /** The digest of `handle`'s credential files, read once and then refreshed by `poll`. */
  async digest(handle: ProviderHandle, signal?: AbortSignal): Promise<string> {
    const files = handle.credentialFiles ?? [];
    const key = files.join('\n');
    const seen = this.#seen.get(handle.name);
    if (seen && seen.files === key) return seen.digest;
    const digest = await credentialDigest(files, signal);
    this.#seen.set(handle.name, { files: key, digest });
    return digest;
  }

  /** Re-reads every provider's files; reports (and returns) the providers whose digest changed. */
  async poll(signal?: AbortSignal): Promise<string[]> {
    const changed: string[] = [];
    const names = this.providers.names();
    for (const name of this.#seen.keys()) if (!names.includes(name)) this.#seen.delete(name);
    for (const name of names) {
      const handle = this.providers.get(name);
      const files = handle?.credentialFiles ?? [];
      if (!handle || files.length === 0) continue;
      const before = this.#seen.get(name);
      const digest = await credentialDigest(files, signal);
      this.#seen.set(name, { files: files.join('\n'), digest });
      if (before && before.files === files.join('\n') && before.digest !== digest) changed.push(name);
    }
    if (changed.length) this.onChange(changed);
    return changed;
  }
}
