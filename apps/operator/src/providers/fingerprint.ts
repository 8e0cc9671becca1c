import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson } from '../domain/canonical-json.js';

/**
 * A one-way digest of a provider entry (name, type, block). Key order does not matter, so a
 * reformatted file keeps its fingerprints; any value change makes a new one.
 */
export function entryFingerprint(entry: {
  name: string;
  type: string;
  config: unknown;
  module?: string;
}): string {
  // `module` only when set, so a bundled entry keeps the fingerprint it had before modules existed.
  const text = canonicalJson({
    name: entry.name,
    type: entry.type,
    config: entry.config,
    ...(entry.module !== undefined ? { module: entry.module } : {}),
  });
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/**
 * The files a provider entry reads its credentials from: every string under a key ending in
 * `File` (sshKeyFile, knownHostsFile, tokenFile, caFile), `kubeconfig`, and for `gcp` (whose
 * credentials come from the environment) the Application Default Credentials file:
 * `$GOOGLE_APPLICATION_CREDENTIALS`, else gcloud's. A Permanent failure latched on the entry is
 * released when one of them changes (a rotated Secret mounted there).
 */
export function credentialFiles(
  entry: { type?: string; config: unknown },
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const out = new Set<string>();
  const walk = (v: unknown, key: string) => {
    if (typeof v === 'string') {
      if (/File$/.test(key) || key === 'kubeconfig') out.add(v);
    } else if (Array.isArray(v)) {
      for (const x of v) walk(x, key);
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) walk(x, k);
    }
  };
  walk(entry.config, '');
  if (entry.type === 'gcp') out.add(adcFile(env));
  return [...out].sort();
}

/** Where google-auth-library looks for Application Default Credentials in a file. */
function adcFile(env: NodeJS.ProcessEnv): string {
  if (env.GOOGLE_APPLICATION_CREDENTIALS) return env.GOOGLE_APPLICATION_CREDENTIALS;
  const gcloud = env.CLOUDSDK_CONFIG ?? join(env.HOME ?? homedir(), '.config', 'gcloud');
  return join(gcloud, 'application_default_credentials.json');
}

/**
 * A one-way digest of the credential files' contents ('' without files); a missing or unreadable
 * file counts as its own state, so removing and restoring a file are changes too.
 */
export async function credentialDigest(files: readonly string[], signal?: AbortSignal): Promise<string> {
  if (files.length === 0) return '';
  const h = createHash('sha256');
  for (const f of files) {
    h.update(f).update('\0');
    try {
      h.update(await readFile(f, signal ? { signal } : {}));
    } catch (err) {
      if (signal?.aborted) throw err;
      h.update(`unreadable:${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    h.update('\0');
  }
  return h.digest('hex').slice(0, 16);
}
