import {
  type CallOptions,
  type Checker,
  type CheckResult,
  type CreateRequest,
  ErrorCode,
  type Instance,
  type Logger,
  loggerOf,
  type Provider,
  type ProviderProfile,
  permanentError,
  traceFields,
  wrapError,
} from '@egress-proxies/contract';
import { KeyedLock } from '@egress-proxies/keyedlock';
import type { Tracer } from '@opentelemetry/api';
import type { Dispatcher } from 'undici';
import { createAuth, type RequestAuth } from './auth.js';
import type { ComputeApi } from './backend.js';
import { currentLogger, runWithLogger } from './call-context.js';
import { check } from './check.js';
import { type GcpConfigInput, parseGcpConfig, type ResolvedGcpConfig } from './config.js';
import type { GcpContext } from './context.js';
import { create } from './create.js';
import { remove } from './delete.js';
import { classify } from './errors.js';
import { FirewallManager, firewallRuleName } from './firewall.js';
import { get } from './get.js';
import { listByTag } from './list.js';
import { observeComputeApi } from './observe.js';
import { OperationTracker } from './operations.js';
import { GCP_PROFILE } from './profile.js';
import { createRestComputeApi, DEFAULT_ENDPOINT } from './rest-client.js';

export interface GcpProviderOptions {
  /** The configured provider entry name, carried into every error (default `gcp`). */
  name?: string;
  /** The Compute API base URL (default the public endpoint). */
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
  const endpoint = options.endpoint ?? DEFAULT_ENDPOINT;
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
  const ctx: GcpContext = {
    name,
    cfg,
    api,
    ops: new OperationTracker(api, cfg.project),
    lock: new KeyedLock<string>(),
    firewall: new FirewallManager(api, cfg, ruleName),
    address,
    listPageSize: options.listPageSize ?? 500,
  };

  const loggerFor = (opts: CallOptions | undefined) => opts?.logger ?? options.logger ?? loggerOf(undefined);
  let closed = false;
  const run = <T>(operation: string, opts: CallOptions | undefined, fn: () => Promise<T>): Promise<T> => {
    // The caller's trace IDs on every line of the call (a backend call's own span overrides them).
    const logger = loggerFor(opts).child({ provider: name, operation, ...traceFields() });
    return runWithLogger(logger, async () => {
      try {
        if (closed) {
          throw permanentError('the provider is closed', { code: ErrorCode.ProviderClosed });
        }
        opts?.signal?.throwIfAborted();
        return await fn();
      } catch (err) {
        throw wrapError(name, operation, classify(err));
      }
    });
  };
  const withLogger = (opts: CallOptions | undefined, operation: string): CallOptions => ({
    ...opts,
    logger: loggerFor(opts).child({ provider: name, operation, ...traceFields() }),
  });

  return {
    name,
    type: 'gcp',
    profile: GCP_PROFILE satisfies ProviderProfile,
    config: cfg,
    firewallRule: ruleName,
    create: (req: CreateRequest, opts?: CallOptions) =>
      run('create', opts, () => create(ctx, req, withLogger(opts, 'create'))),
    get: (id: string, opts?: CallOptions): Promise<Instance> =>
      run('get', opts, () => get(ctx, id, withLogger(opts, 'get'))),
    delete: (id: string, opts?: CallOptions) =>
      run('delete', opts, () => remove(ctx, id, withLogger(opts, 'delete'))),
    listByTag: (opts?: CallOptions) =>
      run('listByTag', opts, () => listByTag(ctx, withLogger(opts, 'listByTag'))),
    check: (opts?: CallOptions): Promise<CheckResult[]> => {
      const o = withLogger(opts, 'check');
      if (closed) {
        // The same stable code as every other call after close (contract 2.12).
        return Promise.reject(
          wrapError(
            name,
            'check',
            permanentError('the provider is closed', { code: ErrorCode.ProviderClosed }),
          ),
        );
      }
      return runWithLogger(loggerOf(o), async () => {
        const results = await check(ctx, o);
        for (const r of results) {
          loggerOf(o).log(1, 'gcp project checked', { project: r.target, ready: r.ready, reason: r.reason });
        }
        return results;
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      await raw.close?.();
    },
  };
}
