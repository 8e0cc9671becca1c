import type { Checker, Logger, Provider } from '@egress-proxies/contract';
import { ErrorCode, permanentError, wrapError } from '@egress-proxies/contract';
import { KeyedLock } from '@egress-proxies/keyedlock';
import { defineProvider } from '@egress-proxies/provider-utils';
import type { Tracer } from '@opentelemetry/api';
import type { Dispatcher } from 'undici';
import { createAuth, type RequestAuth } from './auth.js';
import type { ComputeApi } from './backend.js';
import { currentLogger, runWithLogger } from './call-context.js';
import { check } from './check.js';
import { type GcpConfigInput, parseGcpConfig, type ResolvedGcpConfig } from './config.js';
import type { Context, GcpState } from './context.js';
import { createInstance } from './create.js';
import { deleteInstance } from './delete.js';
import { classify } from './errors.js';
import { FirewallManager, firewallRuleName } from './firewall.js';
import { getInstance } from './get.js';
import { parseId } from './id.js';
import { listInstances } from './list.js';
import { observeComputeApi } from './observe.js';
import { OperationTracker } from './operations.js';
import { gcpProfile } from './profile.js';
import { createRestComputeApi, DEFAULT_ENDPOINT } from './rest-client.js';

export interface GcpProviderOptions {
  /** The configured provider entry name, carried into every error (default `gcp`). */
  name?: string;
  /** The Compute API base URL; the config's `endpoint`, else the public endpoint, when absent. */
  endpoint?: string;
  /** An undici dispatcher for every Compute request (a proxy agent, custom TLS, a test agent). */
  dispatcher?: Dispatcher;
  /** Credentials; google-auth-library's Application Default Credentials when absent. */
  auth?: RequestAuth;
  /** A service-account key file, used when `auth` is absent. */
  keyFile?: string;
  /** Where service-account tokens are exchanged, when not at Google's endpoint. */
  tokenUrl?: string;
  /** Per-request time budget in ms (default 30 s). */
  requestTimeoutMs?: number;
  /** Replaces the REST adapter entirely (tests, or a caller's own transport). */
  api?: ComputeApi;
  tracer?: Tracer;
  /** Aggregated-list page size for listByTag (default 500, Compute's maximum). */
  listPageSize?: number;
  /** The logger used when a call brings none. */
  logger?: Logger;
}

/** A gcp provider entry: the contract's Provider and its Checker in one object. */
export interface GcpProvider extends Provider, Checker {
  readonly config: ResolvedGcpConfig;
  /** The firewall rule this entry manages (whether or not management is enabled). */
  readonly firewallRule: string;
}

/** Builds a provider for one `gcp` config entry. Nothing is contacted until the first call. */
export function createGcpProvider(config: GcpConfigInput, options: GcpProviderOptions = {}): GcpProvider {
  const name = options.name ?? 'gcp';
  let cfg: ResolvedGcpConfig;
  try {
    cfg = parseGcpConfig(config);
  } catch (err) {
    throw wrapError(name, 'configure', err);
  }
  const endpoint = options.endpoint ?? cfg.endpoint ?? DEFAULT_ENDPOINT;
  let address: string;
  try {
    const url = new URL(endpoint);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('not http(s)');
    address = url.host;
  } catch {
    throw permanentError(`endpoint ${JSON.stringify(endpoint)} is not an http(s) URL`, {
      code: ErrorCode.InvalidConfig,
      provider: name,
      operation: 'configure',
    });
  }
  const raw =
    options.api ??
    createRestComputeApi({
      project: cfg.project,
      endpoint,
      auth:
        options.auth ??
        createAuth({
          ...(options.keyFile ? { keyFile: options.keyFile } : {}),
          ...(options.tokenUrl ? { tokenUrl: options.tokenUrl } : {}),
        }),
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    });
  const api = observeComputeApi(raw, currentLogger, options.tracer ? { tracer: options.tracer } : {});
  const ruleName = firewallRuleName(name);
  const state: GcpState = {
    name,
    cfg,
    api,
    ops: new OperationTracker(api, cfg.project),
    lock: new KeyedLock<string>(),
    firewall: new FirewallManager(api, cfg, ruleName),
    address,
    listPageSize: options.listPageSize ?? 500,
  };

  return defineProvider({
    type: 'gcp',
    name,
    profile: gcpProfile,
    logger: options.logger,
    classify: (err) => classify(err),
    // Every request takes the call's signal, so nothing needs racing.
    raceSignal: false,
    nameOfId: (id) => parseId(id).name,
    context: (call): Context => ({ ...state, ...call }),
    // The call's logger also rides the async context, for the transport wrapper's lines.
    around: (ctx, fn) => runWithLogger(ctx.logger, fn),
    ops: {
      create: createInstance,
      get: getInstance,
      delete: deleteInstance,
      listByTag: listInstances,
      check: async (ctx) => {
        const results = await check(ctx);
        for (const r of results) {
          ctx.logger.log(1, 'gcp project checked', { project: r.target, ready: r.ready, reason: r.reason });
        }
        return results;
      },
    },
    close: async () => {
      await raw.close?.();
    },
    extra: { config: cfg, firewallRule: ruleName },
  });
}
