import { networkInterfaces } from 'node:os';
import {
  type CallOptions,
  type Checker,
  type CheckResult,
  type CreateRequest,
  ErrorCode,
  type Logger,
  type Provider,
  type ProviderProfile,
  permanentError,
  raceAbort,
  silentLogger,
  throwIfAborted,
  wrapError,
} from '@egress-proxies/contract';
import { KeyedLock } from '@egress-proxies/keyedlock';
import type { LocalBackend } from './backend.js';
import { checkHost } from './check.js';
import { type LocalConfig, type LocalConfigInput, resolveConfig } from './config.js';
import { DEFAULT_TIMING, type OpContext, type Shared, type Timing } from './context.js';
import { createInstance } from './create.js';
import { deleteInstance } from './delete.js';
import { getInstance } from './get.js';
import type { LocalInstance } from './instance.js';
import { listInstances } from './list.js';
import { observe } from './observe.js';
import { createOsBackend } from './os-backend.js';
import { statePaths } from './paths.js';
import { LOCAL_PROFILE } from './profile.js';

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

/** Proxies as supervised processes on this host. */
export class LocalProvider implements Provider, Checker {
  readonly name: string;
  readonly type = LOCAL_TYPE;
  readonly profile: ProviderProfile = LOCAL_PROFILE;
  readonly config: LocalConfig;
  readonly #shared: Shared;
  readonly #backend: LocalBackend;
  readonly #logger: Logger;
  #closed = false;

  constructor(config: LocalConfigInput | LocalConfig, options: LocalProviderOptions = {}) {
    this.name = options.name ?? LOCAL_TYPE;
    this.config = resolveConfig(config, this.name);
    this.#backend = options.backend ?? createOsBackend(this.config.stateDir);
    this.#logger = options.logger ?? silentLogger;
    const getuid = process.getuid;
    this.#shared = {
      providerName: this.name,
      config: this.config,
      paths: statePaths(this.config.stateDir),
      timing: { ...DEFAULT_TIMING, ...options.timing },
      locks: new KeyedLock<string>(),
      reservedPorts: new Set(),
      localAddresses: options.localAddresses ?? hostAddresses,
      isRoot: () => getuid?.() === 0,
    };
  }

  #context(opts: CallOptions | undefined, op: string): OpContext {
    const logger = (opts?.logger ?? this.#logger).child({ provider: this.name, operation: op });
    return {
      ...this.#shared,
      backend: observe(this.#backend, logger),
      pollBackend: observe(this.#backend, logger, 2),
      signal: opts?.signal,
      logger,
    };
  }

  async #run<T>(op: string, opts: CallOptions | undefined, fn: (ctx: OpContext) => Promise<T>): Promise<T> {
    try {
      if (this.#closed) throw permanentError('the provider is closed', { code: ErrorCode.ProviderClosed });
      throwIfAborted(opts?.signal);
      const ctx = this.#context(opts, op);
      return await raceAbort(fn(ctx), opts?.signal);
    } catch (err) {
      throw wrapError(this.name, op, err);
    }
  }

  create(req: CreateRequest, opts?: CallOptions): Promise<string> {
    return this.#run('create', opts, (ctx) => createInstance(ctx, req));
  }

  get(id: string, opts?: CallOptions): Promise<LocalInstance> {
    return this.#run('get', opts, (ctx) => getInstance(ctx, id));
  }

  delete(id: string, opts?: CallOptions): Promise<void> {
    return this.#run('delete', opts, (ctx) => deleteInstance(ctx, id));
  }

  listByTag(opts?: CallOptions): Promise<LocalInstance[]> {
    return this.#run('listByTag', opts, (ctx) => listInstances(ctx));
  }

  /** One result for this host; never rejects (an expired signal is a `Timeout` result) until close. */
  async check(opts?: CallOptions): Promise<CheckResult[]> {
    if (this.#closed) {
      throw wrapError(
        this.name,
        'check',
        permanentError('the provider is closed', { code: ErrorCode.ProviderClosed }),
      );
    }
    const ctx = this.#context(opts, 'check');
    const result = await checkHost(ctx);
    ctx.logger.log(1, 'local check', { target: result.target, ready: result.ready, reason: result.reason });
    return [result];
  }

  /** Marks the provider closed; the proxies keep running (they outlive the process by design). */
  async close(): Promise<void> {
    this.#closed = true;
  }
}
