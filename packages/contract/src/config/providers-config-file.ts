import { readFile } from 'node:fs/promises';
import { ProvidersConfigError } from './providers-config-error.js';
import {
  type LoadProvidersConfigOptions,
  loadProvidersConfig,
  type ProviderEntry,
} from './providers-file.js';

/**
 * Reads and loads a providers config file. The path names the input in every syntax message; a
 * file that cannot be read is a `ProvidersConfigError` too (one issue at the path), so a caller
 * handles one error type for "the config is unusable". An abort rejects with the signal's reason.
 */
export async function loadProvidersConfigFile(
  path: string,
  options: Omit<LoadProvidersConfigOptions, 'source'> & { signal?: AbortSignal } = {},
): Promise<ProviderEntry[]> {
  let text: string;
  try {
    text = await readFile(path, { encoding: 'utf8', ...(options.signal ? { signal: options.signal } : {}) });
  } catch (err) {
    if (options.signal?.aborted) throw options.signal.reason;
    const code = (err as NodeJS.ErrnoException).code;
    throw new ProvidersConfigError(
      [{ path, message: `cannot read the file${code ? ` (${code})` : ''}: ${(err as Error).message}` }],
      { source: path },
    );
  }
  return loadProvidersConfig(text, { ...options, source: path });
}
