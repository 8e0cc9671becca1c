import {
  type CallOptions,
  type Checker,
  type CheckResult,
  type CreateRequest,
  type Instance,
  type LogFields,
  type Logger,
  type Provider,
  type ProviderProfile,
  wrapError,
} from '@egress-proxies/contract';
import { KeyedLock } from '@egress-proxies/keyedlock';
import { createOperationRunner, instanceFields } from '@egress-proxies/provider-utils';
import type { Tracer } from '@opentelemetry/api';
import type { KubeBackend } from './backend.js';
import { currentLogger, runWithLogger } from './call-context.js';
import { check } from './check.js';
import { type ClientNodeOptions, createClientNodeBackend } from './client-node.js';
import { type KubernetesConfig, type KubernetesConfigInput, parseKubernetesConfig } from './config.js';
import type { KubeContext } from './context.js';
import { create } from './create.js';
import { remove } from './delete.js';
import { classify } from './errors.js';
import { get } from './get.js';
import { parseId } from './id.js';
import { listByTag } from './list.js';
import { observeBackend } from './observe.js';
import { kubernetesProfile } from './profile.js';

export interface KubernetesProviderOptions extends ClientNodeOptions {
  /** The configured provider entry name, carried into every error and log line (default `kubernetes`). */
  name?: string;
  /** Replaces the client-node adapter entirely (a test double, or your own client). */
  backend?: KubeBackend;
  tracer?: Tracer;
  /** The logger used when a call brings none. */
  logger?: Logger;
  /** Page size for listByTag (default 500). */
  listPageSize?: number;
}

/** A kubernetes provider entry: the contract's Provider and its Checker in one object. */
export interface KubernetesProvider extends Provider, Checker {
  readonly config: KubernetesConfig;
}

/**
 * Builds a provider for one `kubernetes` config entry. Nothing is contacted (and client-node is
 * not even loaded) until the first call.
 */
export function createKubernetesProvider(
  config: KubernetesConfigInput = {},
  options: KubernetesProviderOptions = {},
): KubernetesProvider {
  const name = options.name ?? 'kubernetes';
  let cfg: KubernetesConfig;
  try {
    cfg = parseKubernetesConfig(config);
  } catch (err) {
    throw wrapError(name, 'configure', err);
  }
  const raw = options.backend ?? createClientNodeBackend(options);
  const ctx: KubeContext = {
    name,
    cfg,
    backend: observeBackend(raw, currentLogger, options.tracer ? { tracer: options.tracer } : {}),
    lock: new KeyedLock<string>(),
    listPageSize: options.listPageSize ?? 500,
  };

  let closed = false;
  // The call's logger, else the provider's, else silent; every line names the provider entry.
  const runner = createOperationRunner({
    name,
    logger: options.logger,
    isClosed: () => closed,
    classify: (err) => classify(err),
    // Every request takes the call's signal, so nothing needs racing.
    raceSignal: false,
    operationField: false,
  });
  const run = <T>(
    operation: string,
    opts: CallOptions | undefined,
    fn: (signal: AbortSignal | undefined, logger: Logger) => Promise<T>,
    fields?: LogFields,
  ): Promise<T> =>
    runner.run(
      operation,
      opts,
      (call) => runWithLogger(call.logger, () => fn(call.signal, call.logger)),
      fields,
    );
  const about = (id: string) => instanceFields(() => parseId(id).name);

  const profile: ProviderProfile = kubernetesProfile;
  return {
    name,
    type: 'kubernetes',
    profile,
    config: cfg,
    create: (req: CreateRequest, opts?: CallOptions) =>
      run(
        'create',
        opts,
        (s, l) => create(ctx, req, s, l),
        instanceFields(() => req.name),
      ),
    get: (id: string, opts?: CallOptions): Promise<Instance> =>
      run('get', opts, (s, l) => get(ctx, id, s, l), about(id)),
    delete: (id: string, opts?: CallOptions) =>
      run('delete', opts, (s, l) => remove(ctx, id, s, l), about(id)),
    listByTag: (opts?: CallOptions) => run('listByTag', opts, (s, l) => listByTag(ctx, s, l)),
    async check(opts?: CallOptions): Promise<CheckResult[]> {
      // The same stable code as every other call after close (contract 2.12).
      if (closed) throw runner.closedError('check');
      const logger = runner.loggerFor('check', opts);
      return runWithLogger(logger, () => check(ctx, opts?.signal, logger));
    },
    async close() {
      // client-node holds no pooled connection of ours (it builds an agent per request); after
      // close every call is refused, so a provider dropped from the config cannot act by accident.
      closed = true;
    },
  };
}
