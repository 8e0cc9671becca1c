import { readFile } from 'node:fs/promises';
import { ProvidersConfigError } from '../config/providers-config-error.js';
import type { ProviderEntry } from '../registry.js';
import { type LoadProvidersConfigOptions, loadProvidersConfig } from './providers-file.js';

/**
 * Reads a providers config file's text. A file that cannot be read is a `ProvidersConfigError`
 * (one issue at the path), so a caller handles one error type for "the config is unusable"; an
 * abort rejects with the signal's reason.
 */
export async function readProvidersConfigFile(
  path: string,
  options: { signal?: AbortSignal } = {},
): Promise<string> {
  try {
    return await readFile(path, { encoding: 'utf8', ...(options.signal ? { signal: options.signal } : {}) });
  } catch (err) {
    if (options.signal?.aborted) throw options.signal.reason;
    const code = (err as NodeJS.ErrnoException).code;
    throw new ProvidersConfigError(
      [{ path, message: `cannot read the file${code ? ` (${code})` : ''}: ${(err as Error).message}` }],
      { source: path },
    );
  }
}

/**
 * Reads and loads a providers config file (`readProvidersConfigFile`, then
 * `loadProvidersConfig`); the path names the input in every syntax message.
 */
export async function loadProvidersConfigFile(
  path: string,
  options: Omit<LoadProvidersConfigOptions, 'source'> & { signal?: AbortSignal },
): Promise<ProviderEntry[]> {
  const text = await readProvidersConfigFile(path, options.signal ? { signal: options.signal } : {});
  return loadProvidersConfig(text, { registry: options.registry, source: path });
}
