import type {
  CallOptions,
  Checker,
  CheckResult,
  CreateRequest,
  Instance,
  LogFields,
  Logger,
  Provider,
  ProviderProfile,
} from '@egress-proxies/contract';
import { ErrorCode, permanentError, wrapError } from '@egress-proxies/contract';
import { KeyedLock } from '@egress-proxies/keyedlock';
import { createOperationRunner, instanceFields } from '@egress-proxies/provider-utils';
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
import { parseId } from './id.js';
import { listByTag } from './list.js';
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

  let closed = false;
  const runner = createOperationRunner({
    name,
    logger: options.logger,
    isClosed: () => closed,
    classify: (err) => classify(err),
    // Every request takes the call's signal, so nothing needs racing.
    raceSignal: false,
  });
  // The call's logger also rides the async context, for the transport wrapper's lines.
  const run = <T>(
    operation: string,
    opts: CallOptions | undefined,
    fn: (o: CallOptions) => Promise<T>,
    fields?: LogFields,
  ): Promise<T> =>
    runner.run(
      operation,
      opts,
      (call) => runWithLogger(call.logger, () => fn({ ...opts, logger: call.logger })),
      fields,
    );
  const about = (id: string) => instanceFields(() => parseId(id).name);

  return {
    name,
    type: 'gcp',
    profile: gcpProfile satisfies ProviderProfile,
    config: cfg,
    firewallRule: ruleName,
    create: (req: CreateRequest, opts?: CallOptions) =>
      run(
        'create',
        opts,
        (o) => create(ctx, req, o),
        instanceFields(() => req.name),
      ),
    get: (id: string, opts?: CallOptions): Promise<Instance> =>
      run('get', opts, (o) => get(ctx, id, o), about(id)),
    delete: (id: string, opts?: CallOptions) => run('delete', opts, (o) => remove(ctx, id, o), about(id)),
    listByTag: (opts?: CallOptions) => run('listByTag', opts, (o) => listByTag(ctx, o)),
    check: (opts?: CallOptions): Promise<CheckResult[]> => {
      // The same stable code as every other call after close (contract 2.12).
      if (closed) return Promise.reject(runner.closedError('check'));
      const logger = runner.loggerFor('check', opts);
      return runWithLogger(logger, async () => {
        const results = await check(ctx, { ...opts, logger });
        for (const r of results) {
          logger.log(1, 'gcp project checked', { project: r.target, ready: r.ready, reason: r.reason });
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
