import { type Checker, type Logger, type Provider, wrapError } from '@egress-proxies/contract';
import { KeyedLock } from '@egress-proxies/keyedlock';
import { defineProvider } from '@egress-proxies/provider-utils';
import type { Tracer } from '@opentelemetry/api';
import type { KubeBackend } from './backend.js';
import { currentLogger, runWithLogger } from './call-context.js';
import { check } from './check.js';
import { type ClientNodeOptions, createClientNodeBackend } from './client-node.js';
import { type KubernetesConfig, type KubernetesConfigInput, parseKubernetesConfig } from './config.js';
import type { Context, KubeState } from './context.js';
import { createInstance } from './create.js';
import { deleteInstance } from './delete.js';
import { classify } from './errors.js';
import { getInstance } from './get.js';
import { parseId } from './id.js';
import { listInstances } from './list.js';
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
  const state: KubeState = {
    name,
    cfg,
    backend: observeBackend(raw, currentLogger, options.tracer ? { tracer: options.tracer } : {}),
    lock: new KeyedLock<string>(),
    listPageSize: options.listPageSize ?? 500,
  };

  return defineProvider({
    type: 'kubernetes',
    name,
    profile: kubernetesProfile,
    // The call's logger, else the provider's, else silent; every line names the provider entry.
    logger: options.logger,
    classify: (err) => classify(err),
    // Every request takes the call's signal, so nothing needs racing.
    raceSignal: false,
    operationField: false,
    nameOfId: (id) => parseId(id).name,
    context: (call): Context => ({ ...state, ...call }),
    // The call's logger also rides the async context, for the seam wrapper's lines.
    around: (ctx, fn) => runWithLogger(ctx.logger, fn),
    ops: {
      create: createInstance,
      get: getInstance,
      delete: deleteInstance,
      listByTag: listInstances,
      check,
    },
    // client-node holds no pooled connection of ours (it builds an agent per request); after
    // close every call is refused, so a provider dropped from the config cannot act by accident.
    extra: { config: cfg },
  });
}
