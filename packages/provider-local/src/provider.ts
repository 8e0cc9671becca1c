import { networkInterfaces } from 'node:os';
import type {
  CallOptions,
  Checker,
  CheckResult,
  CreateRequest,
  LogFields,
  Logger,
  Provider,
  ProviderProfile,
} from '@egress-proxies/contract';
import { KeyedLock } from '@egress-proxies/keyedlock';
import {
  buildHostEgressPlan,
  createOperationRunner,
  type HostEgressPlan,
  instanceFields,
  type OperationCall,
  type OperationRunner,
  silentLogger,
} from '@egress-proxies/provider-utils';
import type { LocalBackend } from './backend.js';
import { checkHost } from './check.js';
import { type LocalConfig, type LocalConfigInput, resolveConfig } from './config.js';
import { DEFAULT_TIMING, type OpContext, type Shared, type Timing } from './context.js';
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

/**
 * A local provider and its Checker (the same object): proxies as detached processes on this
 * host, Squid when installed, the built-in Node proxy otherwise. Validates `config` (a bad one
 * throws the one config error) and makes no host call until the first operation.
 */
export function createLocalProvider(
  config: LocalConfigInput,
  options: LocalProviderOptions = {},
): LocalProvider {
  return new LocalProvider(config, options);
}

/** Proxies as supervised processes on this host. */
export class LocalProvider implements Provider, Checker {
  readonly name: string;
  readonly type = LOCAL_TYPE;
  readonly profile: ProviderProfile = localProfile;
  readonly config: LocalConfig;
  readonly #shared: Shared;
  readonly #backend: LocalBackend;
  readonly #runner: OperationRunner;
  #closed = false;

  constructor(config: LocalConfigInput | LocalConfig, options: LocalProviderOptions = {}) {
    this.name = options.name ?? LOCAL_TYPE;
    this.config = resolveConfig(config, this.name);
    this.#backend = options.backend ?? createOsBackend(this.config.stateDir);
    this.#runner = createOperationRunner({
      name: this.name,
      logger: options.logger ?? silentLogger,
      isClosed: () => this.#closed,
    });
    const getuid = process.getuid;
    this.#shared = {
      providerName: this.name,
      config: this.config,
      egressPlan: expandPlan(this.config),
      paths: statePaths(this.config.stateDir),
      timing: { ...DEFAULT_TIMING, ...options.timing },
      locks: new KeyedLock<string>(),
      reservedPorts: new Set(),
      localAddresses: options.localAddresses ?? hostAddresses,
      isRoot: () => getuid?.() === 0,
    };
  }

  #context(call: Pick<OperationCall, 'signal' | 'logger'>): OpContext {
    return {
      ...this.#shared,
      backend: observe(this.#backend, call.logger),
      pollBackend: observe(this.#backend, call.logger, 2),
      signal: call.signal,
      logger: call.logger,
    };
  }

  #run<T>(
    op: string,
    opts: CallOptions | undefined,
    fn: (ctx: OpContext) => Promise<T>,
    fields?: LogFields,
  ): Promise<T> {
    return this.#runner.run(op, opts, (call) => fn(this.#context(call)), fields);
  }

  create(req: CreateRequest, opts?: CallOptions): Promise<string> {
    return this.#run(
      'create',
      opts,
      (ctx) => createInstance(ctx, req),
      instanceFields(() => req.name),
    );
  }

  get(id: string, opts?: CallOptions): Promise<LocalInstance> {
    return this.#run(
      'get',
      opts,
      (ctx) => getInstance(ctx, id),
      instanceFields(() => parseId(id)),
    );
  }

  delete(id: string, opts?: CallOptions): Promise<void> {
    return this.#run(
      'delete',
      opts,
      (ctx) => deleteInstance(ctx, id),
      instanceFields(() => parseId(id)),
    );
  }

  listByTag(opts?: CallOptions): Promise<LocalInstance[]> {
    return this.#run('listByTag', opts, (ctx) => listInstances(ctx));
  }

  /** One result for this host; never rejects (an expired signal is a `Timeout` result) until close. */
  async check(opts?: CallOptions): Promise<CheckResult[]> {
    if (this.#closed) throw this.#runner.closedError('check');
    const ctx = this.#context({ signal: opts?.signal, logger: this.#runner.loggerFor('check', opts) });
    const result = await checkHost(ctx);
    ctx.logger.log(1, 'local check', { target: result.target, ready: result.ready, reason: result.reason });
    return [result];
  }

  /** Marks the provider closed; the proxies keep running (they outlive the process by design). */
  async close(): Promise<void> {
    this.#closed = true;
  }
}
