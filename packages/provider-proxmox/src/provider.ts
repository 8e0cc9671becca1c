import type {
  CallOptions,
  Checker,
  CheckResult,
  Logger,
  Provider,
  SecondaryResource,
} from '@egress-proxies/contract';
import { KeyedLock } from '@egress-proxies/keyedlock';
import { defineProvider, silentLogger } from '@egress-proxies/provider-utils';
import type { Tracer } from '@opentelemetry/api';
import type { Dispatcher } from 'undici';
import type { Backend } from './backend.js';
import { check } from './check.js';
import { HttpBackend } from './client.js';
import { type ProxmoxConfig, type ProxmoxConfigInput, parseProxmoxConfig } from './config.js';
import type { Budgets, Context, Pending } from './context.js';
import { createInstance } from './create.js';
import { deleteInstance } from './delete.js';
import { compilePlans } from './egress.js';
import { classify } from './errors.js';
import { getInstance } from './get.js';
import { parseProviderId } from './id.js';
import { KeyedLimiter } from './limiter.js';
import { listInstances } from './list.js';
import { observe } from './observe.js';
import { profileFor } from './profile.js';
import { deleteSecondary, listSecondary } from './secondary.js';
import { buildSeed, type SeedInput } from './seed.js';

export interface ProxmoxProviderOptions {
  /** The configured entry name, carried into every error and log line. Default `proxmox`. */
  name?: string;
  /** The logger used when a call passes none. */
  logger?: Logger;
  /** Your own undici dispatcher (a proxy, a test harness) instead of the built-in pool. */
  dispatcher?: Dispatcher;
  /** The tracer for the per-request client spans. Default: the global provider's. */
  tracer?: Tracer;
  /** Replaces the HTTP adapter entirely (tests of provider logic). */
  backend?: Backend;
  /** Overrides of the time budgets (tests shorten the poll interval). */
  budgets?: Partial<Budgets>;
  /** Replaces the seed ISO builder. */
  buildSeed?: (i: SeedInput) => Uint8Array;
  /** The clock; default `Date.now`. */
  now?: () => number;
}

export interface ProxmoxProvider extends Provider, Checker {
  readonly config: ProxmoxConfig;
  /** The most clones seen running at once on `node` (a bounded-concurrency witness). */
  peakClones(node: string): number;
  listSecondary(opts?: CallOptions): Promise<SecondaryResource[]>;
  deleteSecondary(id: string, opts?: CallOptions): Promise<void>;
  check(opts?: CallOptions): Promise<CheckResult[]>;
  close(): Promise<void>;
}

/**
 * Builds the provider. No request is made here; a bad config throws a Permanent
 * `INVALID_CONFIG` naming every bad field.
 */
export function createProxmoxProvider(
  config: ProxmoxConfigInput,
  options: ProxmoxProviderOptions = {},
): ProxmoxProvider {
  const cfg = parseProxmoxConfig(config, options.name ?? 'proxmox');
  const name = options.name ?? 'proxmox';
  const http = options.backend
    ? undefined
    : new HttpBackend({
        url: cfg.url,
        tokenFile: cfg.tokenFile,
        caFile: cfg.caFile,
        insecureSkipTLSVerify: cfg.insecureSkipTLSVerify,
        requestTimeoutMs: cfg.requestTimeoutSeconds * 1000,
        dispatcher: options.dispatcher,
        tracer: options.tracer,
      });
  const backend: Backend = options.backend ?? (http as Backend);
  const budgets: Budgets = {
    pollMs: 1000,
    taskMs: 5 * 60_000,
    cloneMs: 600_000,
    runningMs: 60_000,
    lockWaitMs: 2 * 60_000,
    checkMs: 2 * cfg.requestTimeoutSeconds * 1000,
    ...options.budgets,
  };
  const names = new KeyedLock<string>();
  const plans = compilePlans(cfg);
  const planLock = new KeyedLock<string>();
  const pending: Pending = { addresses: new Map(), macs: new Map(), unsettled: new Set() };
  const clones = new KeyedLimiter(cfg.maxParallelClonesPerNode);
  const now = options.now ?? Date.now;
  const seed = options.buildSeed ?? buildSeed;
  const baseLogger = (options.logger ?? silentLogger).child({ logger: 'proxmox', provider: name });
  if (cfg.insecureSkipTLSVerify) baseLogger.log(1, 'proxmox TLS verification is off (insecureSkipTLSVerify)');
  // No request here; a token file that is not there yet (a Secret still mounting) is only noted.
  // node:fs by getBuiltinModule: an ESM import of it builds its whole namespace, node:stream included.
  if (!options.backend && !process.getBuiltinModule('node:fs').existsSync(cfg.tokenFile))
    baseLogger.log(1, 'proxmox token file does not exist yet', { tokenFile: cfg.tokenFile });

  return defineProvider({
    type: 'proxmox',
    name,
    profile: profileFor(cfg.egressPlan !== undefined || Object.keys(cfg.nodeEgressPlans).length > 0),
    logger: options.logger,
    classify: (err, op) => classify(op, err),
    // Every request takes the call's signal, so nothing needs racing.
    raceSignal: false,
    fields: { logger: 'proxmox' },
    operationField: false,
    nameOfId: (id) => parseProviderId(id).name,
    context: (call): Context => ({
      ...call,
      provider: name,
      cfg,
      api: observe(backend, call.logger),
      signal: call.signal ?? new AbortController().signal,
      budgets,
      names,
      plans,
      planLock,
      pending,
      clones,
      buildSeed: seed,
      now,
    }),
    ops: {
      create: createInstance,
      get: getInstance,
      delete: deleteInstance,
      listByTag: listInstances,
      check,
      listSecondary,
      deleteSecondary,
    },
    close: async () => {
      await http?.close();
    },
    extra: { config: cfg, peakClones: (node: string) => clones.peak(node) },
  }) as ProxmoxProvider;
}
