import { dirname, isAbsolute, resolve } from 'node:path';
import type { ProviderEntry } from '@egress-proxies/provider-utils';
import { readProvidersConfigFile } from '@egress-proxies/provider-utils/providers-file';
import type { OpLogger } from '../domain/op-logger.js';
import { reportModuleFailures } from '../providers/load-providers.js';
import type { ProviderLoader } from '../providers/provider-loader.js';
import type { ProviderModuleError } from '../providers/provider-module-error.js';

/**
 * A `local` entry's relative stateDir is taken relative to the providers file, so a sample
 * directory works from any working directory.
 */
export function resolveEntries(entries: ProviderEntry[], providersPath: string): ProviderEntry[] {
  const base = dirname(resolve(providersPath));
  return entries.map((e) => {
    const cfg = e.config as { stateDir?: unknown } | undefined;
    if (e.type !== 'local' || e.module || typeof cfg?.stateDir !== 'string' || isAbsolute(cfg.stateDir))
      return e;
    return { ...e, config: { ...cfg, stateDir: resolve(base, cfg.stateDir) } } as ProviderEntry;
  });
}

export interface PrepareOptions {
  signal?: AbortSignal;
  /** Where a module that cannot be used is reported; `log.error` when absent. */
  onModuleError?: (err: ProviderModuleError) => void;
  log?: OpLogger;
}

/** A loaded config's entries, their factories imported (bundled or `module:`), paths resolved. */
export async function prepareStandaloneEntries(
  entries: ProviderEntry[],
  path: string,
  loader: ProviderLoader,
  opts: PrepareOptions = {},
): Promise<ProviderEntry[]> {
  const report =
    opts.onModuleError ??
    ((err: ProviderModuleError) =>
      opts.log?.error(
        { provider: err.entry.name, module: err.module, error: err.message },
        'provider module failed',
      ));
  const prepared = await loader.prepare(resolveEntries(entries, path), opts.signal);
  return reportModuleFailures(prepared, report);
}

/** Loads and checks a providers file, each block by its factory's schema, then imports modules. */
export async function loadStandaloneProviders(
  path: string,
  loader: ProviderLoader,
  opts: PrepareOptions = {},
): Promise<ProviderEntry[]> {
  const signal = opts.signal ? { signal: opts.signal } : {};
  const entries = await loader.loadConfig(await readProvidersConfigFile(path, signal), signal);
  return prepareStandaloneEntries(entries, path, loader, opts);
}
