import { networkInterfaces } from 'node:os';
import type { CallOptions, Checker, Logger, Provider } from '@egress-proxies/contract';
import { KeyedLock } from '@egress-proxies/keyedlock';
import { buildHostEgressPlan, defineProvider, type HostEgressPlan } from '@egress-proxies/provider-utils';
import type { LocalBackend } from './backend.js';
import { checkHost } from './check.js';
import { type LocalConfig, type LocalConfigInput, resolveConfig } from './config.js';
import { type Context, DEFAULT_TIMING, type Shared, type Timing } from './context.js';
import { createInstance } from './create.js';
import { deleteInstance } from './delete.js';
import { getInstance } from './get.js';
import { parseId } from './id.js';
import type { LocalInstance } from './instance.js';
import { listInstances } from './list.js';
import { observe } from './observe.js';
import { createOsBackend } from './os-backend.js';
import { statePaths } from './paths.js';
import { localProfile } from './profile.js';

/** The config's plan, expanded; the schema already rejected a bad one. */
function expandPlan(config: LocalConfig): HostEgressPlan | undefined {
  if (!config.egress) return undefined;
  const built = buildHostEgressPlan(config.egress);
  if (!built.ok)
    throw new Error(`egress plan passed the schema but not the expansion: ${built.issues[0]?.message}`);
  return built.plan;
}

export const LOCAL_TYPE = 'local';

export interface LocalProviderOptions {
  /** The configured entry name, carried by every error and log line; `local` when absent. */
  name?: string;
  /** Used when a call's options carry no logger; silent when absent. */
  logger?: Logger;
  /** The host seam; the real machine when absent. Tests wrap the real one to inject faults. */
  backend?: LocalBackend;
  /** Overrides of the time budgets (see `Timing`). */
  timing?: Partial<Timing>;
  /** The addresses `placement.zone` may name; this host's interface addresses when absent. */
  localAddresses?: () => string[];
}

function hostAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .map((a) => a.address);
}

/** A local provider entry: the contract's Provider and its Checker in one object. */
export interface LocalProvider extends Provider, Checker {
  readonly config: LocalConfig;
  get(id: string, opts?: CallOptions): Promise<LocalInstance>;
  listByTag(opts?: CallOptions): Promise<LocalInstance[]>;
  /** Marks the provider closed; the proxies keep running (they outlive the process by design). */
  close(): Promise<void>;
}

/**
 * A local provider and its Checker (the same object): proxies as detached processes on this
 * host, Squid when installed, the built-in Node proxy otherwise. Validates `config` (a bad one
 * throws the one config error) and makes no host call until the first operation.
 */
export function createLocalProvider(
  config: LocalConfigInput,
  options: LocalProviderOptions = {},
): LocalProvider {
  return buildLocalProvider(config, options);
}

/** `createLocalProvider`, also taking a config already resolved (the test harness's). */
export function buildLocalProvider(
  input: LocalConfigInput | LocalConfig,
  options: LocalProviderOptions = {},
): LocalProvider {
  const name = options.name ?? LOCAL_TYPE;
  const config = resolveConfig(input, name);
  const backend = options.backend ?? createOsBackend(config.stateDir);
  const getuid = process.getuid;
  const shared: Shared = {
    providerName: name,
    config,
    egressPlan: expandPlan(config),
    paths: statePaths(config.stateDir),
    timing: { ...DEFAULT_TIMING, ...options.timing },
    locks: new KeyedLock<string>(),
    reservedPorts: new Set(),
    localAddresses: options.localAddresses ?? hostAddresses,
    isRoot: () => getuid?.() === 0,
  };
  return defineProvider({
    type: LOCAL_TYPE,
    name,
    profile: localProfile,
    logger: options.logger,
    nameOfId: parseId,
    context: (call): Context => ({
      ...shared,
      ...call,
      backend: observe(backend, call.logger),
      pollBackend: observe(backend, call.logger, 2),
    }),
    ops: {
      create: createInstance,
      get: getInstance,
      delete: deleteInstance,
      listByTag: listInstances,
      // One result for this host; never rejects (an expired signal is a `Timeout` result).
      check: async (ctx) => {
        const result = await checkHost(ctx);
        ctx.logger.log(1, 'local check', {
          target: result.target,
          ready: result.ready,
          reason: result.reason,
        });
        return [result];
      },
    },
    // Nothing to release: the proxies keep running (they outlive the process by design).
    extra: { config },
  }) as LocalProvider;
}
