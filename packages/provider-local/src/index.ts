import { type Checker, defineProviderFactory, type Provider } from '@egress-proxies/contract';
import type { LocalConfig, LocalConfigInput } from './config.js';
import { LocalProvider, type LocalProviderOptions } from './provider.js';

export type { LocalBackend, ProcessInfo, Spawned, SpawnSpec, Step, UserIds } from './backend.js';
export { STEPS } from './backend.js';
export { LocalCheckReason } from './check.js';
export {
  type Engine,
  LOCAL_DEFAULTS,
  type LocalConfig,
  type LocalConfigInput,
  localConfigSchema,
  resolveConfig,
} from './config.js';
export { DEFAULT_TIMING, type Timing } from './context.js';
export { type SquidConfInput, squidConf } from './engines/squid.js';
export { LocalErrorCode } from './errors.js';
export { formatId, ID_PREFIX, parseId } from './id.js';
export type { LocalInstance } from './instance.js';
export { createOsBackend } from './os-backend.js';
export { LOCAL_RUNTIME_DIR, type StatePaths, statePaths } from './paths.js';
export { portCandidates } from './ports.js';
export { LOCAL_PROFILE } from './profile.js';
export { LOCAL_TYPE, LocalProvider, type LocalProviderOptions } from './provider.js';
export { decodeState, encodeState, type InstanceRecord } from './state-file.js';

/**
 * A local provider and its Checker (the same object): proxies as detached processes on this
 * host, Squid when installed, proxy-chain otherwise. Makes no host call until the first
 * operation.
 */
export function createLocalProvider(
  config: LocalConfigInput | LocalConfig,
  options: LocalProviderOptions = {},
): { provider: LocalProvider; checker: Checker } {
  const provider = new LocalProvider(config, options);
  return { provider, checker: provider };
}

/** Registers type `local` in a `ProviderRegistry`. */
export const localProviderFactory = defineProviderFactory('local', (config, context) => {
  const { provider, checker } = createLocalProvider(config, {
    name: context.name,
    ...(context.logger ? { logger: context.logger } : {}),
  });
  return { provider: provider as Provider, checker };
});
