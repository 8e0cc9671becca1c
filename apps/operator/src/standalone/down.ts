import type { ProviderRegistry } from '@egress-proxies/provider-utils';
import { providerLoader } from '../providers/load-providers.js';
import { loadStandaloneProviders } from './providers-file.js';
import { readState, writeState } from './state-file.js';

export interface DownOptions {
  providersPath: string;
  stateDir: string;
  registry?: ProviderRegistry;
  /** Where `module:` entries resolve first; `$EGRESS_PROXIES_MODULES_DIR`, then the operator's install. */
  modulesDir?: string;
  signal?: AbortSignal;
  /** Progress lines. */
  onLine?: (line: string) => void;
}

export interface DownReport {
  installation?: string;
  deleted: string[];
  errors: string[];
}

/**
 * Deletes every instance and secondary resource carrying this state dir's installation id, on
 * every configured provider, then empties the state file's Proxy list (the id stays).
 * Instances of other installations are never touched.
 */
export async function down(opts: DownOptions): Promise<DownReport> {
  const say = opts.onLine ?? (() => {});
  const state = readState(opts.stateDir);
  if (!state) {
    say(`nothing to do: no state in ${opts.stateDir}`);
    return { deleted: [], errors: [] };
  }
  const loader = providerLoader(opts.providersPath, opts);
  const providers = loader.providerSet();
  await providers.apply(
    await loadStandaloneProviders(opts.providersPath, loader, {
      ...(opts.signal ? { signal: opts.signal } : {}),
      onModuleError: (err) => say(`skipped: ${err.message}`),
    }),
  );
  const report: DownReport = { installation: state.installation, deleted: [], errors: [] };
  const signal = opts.signal;
  try {
    for (const slot of providers.slots()) {
      let instances: Awaited<ReturnType<typeof slot.provider.listByTag>>;
      try {
        instances = await slot.provider.listByTag(signal ? { signal } : {});
      } catch (err) {
        report.errors.push(`${slot.name}: list failed: ${err instanceof Error ? err.message : String(err)}`);
        continue;
      }
      // In parallel: a proxy process can take seconds to stop, and deletes of distinct names
      // do not interfere.
      await Promise.all(
        instances
          .filter((i) => i.installation === state.installation)
          .map(async (inst) => {
            try {
              await slot.provider.delete(inst.id, signal ? { signal } : {});
              report.deleted.push(inst.id);
              say(`deleted ${inst.id} (${slot.name})`);
            } catch (err) {
              report.errors.push(`${inst.id}: ${err instanceof Error ? err.message : String(err)}`);
            }
          }),
      );
      report.deleted.sort();
      if (!slot.provider.listSecondary || !slot.provider.deleteSecondary) continue;
      try {
        for (const r of await slot.provider.listSecondary(signal ? { signal } : {})) {
          if (r.installation !== state.installation) continue;
          await slot.provider.deleteSecondary(r.id, signal ? { signal } : {});
          report.deleted.push(r.id);
          say(`deleted ${r.kind} ${r.id} (${slot.name})`);
        }
      } catch (err) {
        report.errors.push(`${slot.name}: secondary: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  } finally {
    await providers.close();
  }
  if (report.errors.length === 0)
    writeState(opts.stateDir, { installation: state.installation, proxies: [] });
  return report;
}
