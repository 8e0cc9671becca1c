import { dirname, isAbsolute, resolve } from 'node:path';
import { loadProvidersConfigFile, type ProviderEntry, type ProviderRegistry } from '@egress-proxies/contract';
import { checkRegistered } from '../providers/check-registered.js';

/**
 * A `local` entry's relative stateDir is taken relative to the providers file, so a sample
 * directory works from any working directory.
 */
export function resolveEntries(entries: ProviderEntry[], providersPath: string): ProviderEntry[] {
  const base = dirname(resolve(providersPath));
  return entries.map((e) => {
    const cfg = e.config as { stateDir?: unknown } | undefined;
    if (e.type !== 'local' || typeof cfg?.stateDir !== 'string' || isAbsolute(cfg.stateDir)) return e;
    return { ...e, config: { ...cfg, stateDir: resolve(base, cfg.stateDir) } } as ProviderEntry;
  });
}

/** Loads and checks a providers file: the contract's messages, then the bundled types. */
export async function loadStandaloneProviders(
  path: string,
  registry: ProviderRegistry,
  signal?: AbortSignal,
): Promise<ProviderEntry[]> {
  const entries = await loadProvidersConfigFile(path, signal ? { signal } : {});
  return resolveEntries(checkRegistered(registry, entries, path), path);
}
