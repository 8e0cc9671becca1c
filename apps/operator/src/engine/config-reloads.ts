import type { ProviderEntry } from '@egress-proxies/provider-utils';
import type { OpLogger } from '../domain/op-logger.js';
import { ConfigWatcher } from '../providers/config-watcher.js';
import type { ProviderSet } from '../providers/provider-set.js';
import type { OperatorMetrics } from '../telemetry/metrics.js';

export interface ConfigReloadsOptions {
  path: string;
  /** The text the providers were loaded from. */
  text: string;
  providers: Pick<ProviderSet, 'apply' | 'names'>;
  /** What a new config goes through before the providers get it; throwing rejects it. */
  prepare: (entries: ProviderEntry[]) => ProviderEntry[] | Promise<ProviderEntry[]>;
  metrics: OperatorMetrics;
  log: OpLogger;
  pollMs?: number;
  /** Loads and checks a changed file's text. */
  load: (text: string) => Promise<ProviderEntry[]> | ProviderEntry[];
}

/**
 * A watcher (not started) that applies each new providers config, counts it as applied or
 * rejected, and keeps the previous config when the new one cannot be used.
 */
export function watchProvidersConfig(opts: ConfigReloadsOptions): ConfigWatcher {
  const { providers, metrics, log } = opts;
  const watcher = new ConfigWatcher({
    path: opts.path,
    ...(opts.pollMs ? { pollMs: opts.pollMs } : {}),
    load: opts.load,
    onConfig: async (next) => {
      await providers.apply(await opts.prepare(next));
      metrics.configReloads.inc({ result: 'applied' });
      log.info({ providers: providers.names() }, 'providers config reloaded');
    },
    onError: (err) => {
      metrics.configReloads.inc({ result: 'rejected' });
      log.error(
        { error: err instanceof Error ? err.message : String(err) },
        'providers config rejected; keeping the previous one',
      );
    },
  });
  // The watcher compares digests of the file's text, so it starts from the loaded one.
  watcher.setInitial(opts.text);
  return watcher;
}
