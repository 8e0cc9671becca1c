import type { ProviderEntry, ProviderRegistry } from '@egress-proxies/provider-utils';
import { type PreparedProviders, ProviderLoader } from './provider-loader.js';
import type { ProviderModuleError } from './provider-module-error.js';

/** The environment variable naming the directory `module:` entries resolve from first. */
export const MODULES_DIR_ENV = 'EGRESS_PROXIES_MODULES_DIR';

/** The loader an entry point uses: its registry when given, else the bundled packages on use. */
export function providerLoader(
  source: string,
  opts: { registry?: ProviderRegistry | undefined; modulesDir?: string | undefined },
): ProviderLoader {
  const modulesDir = opts.modulesDir ?? process.env[MODULES_DIR_ENV];
  return new ProviderLoader({
    source,
    ...(opts.registry ? { registry: opts.registry } : {}),
    ...(modulesDir ? { modulesDir } : {}),
  });
}

/** The usable entries; each entry whose module failed goes to `report` (the rest still load). */
export function reportModuleFailures(
  prepared: PreparedProviders,
  report: (err: ProviderModuleError) => void,
): ProviderEntry[] {
  for (const err of prepared.failures) report(err);
  return prepared.entries;
}
