import {
  type CallOptions,
  type Checker,
  type Logger,
  type Provider,
  type SecondaryResource,
  wrapError,
} from '@egress-proxies/contract';
import { KeyedLock } from '@egress-proxies/keyedlock';
import { defineProvider, silentLogger } from '@egress-proxies/provider-utils';
import type { Tracer } from '@opentelemetry/api';
import type { Dialer } from './backend.js';
import { checkHosts } from './check.js';
import { type KvmConfig, parseKvmConfig } from './config.js';
import { type Context, type Core, openOp, PHASES } from './core.js';
import { createInstance } from './create.js';
import { deleteInstance } from './delete.js';
import { compilePlans } from './egress.js';
import { classify } from './errors.js';
import type { KvmFlavour } from './flavour.js';
import { getInstance } from './get.js';
import { HostTable } from './hosts.js';
import { httpFetcher, type ImageFetcher } from './http-fetcher.js';
import { parseProviderId } from './id.js';
import { type Budgets, DEFAULT_BUDGETS } from './libvirt-backend.js';
import { listInstances } from './list.js';
import { deleteSecondary, listSecondary } from './secondary.js';
import { sshDialer } from './ssh-dialer.js';

/** Construction options shared by the kvm and kvm2 factories. */
export interface KvmProviderOptions {
  /** The configured entry name, carried by every error and log line; the type when absent. */
  name?: string;
  /** Where construction-time warnings go (unreadable credential files, insecure host keys). */
  logger?: Logger;
  /** The transport: SSH by default; tests and users may route elsewhere. */
  dialer?: Dialer;
  /** Opens image downloads; node's http/https by default. */
  fetcher?: ImageFetcher;
  /** Spans go here; the global tracer provider otherwise. */
  tracer?: Tracer;
  budgets?: Partial<Budgets>;
  /** How often Create polls for running (500 ms) and for how long (15 s). */
  pollIntervalMs?: number;
  startTimeoutMs?: number;
  /** How often the image download logs progress at V1 (5 s). */
  progressIntervalMs?: number;
  /** The clock written into `createdAt`. */
  now?: () => Date;
}

/** A kvm-family provider entry: the contract's Provider and its Checker in one object. */
export interface KvmFamilyProvider extends Provider, Checker {
  /** The validated config with defaults filled. */
  readonly config: KvmConfig;
  listSecondary(opts?: CallOptions): Promise<SecondaryResource[]>;
  deleteSecondary(id: string, opts?: CallOptions): Promise<void>;
  close(): Promise<void>;
}

/** A kvm-family provider: one implementation, parameterised by the flavour. */
export function createKvmFamilyProvider(
  flavour: KvmFlavour,
  config: unknown,
  options: KvmProviderOptions = {},
): KvmFamilyProvider {
  const name = options.name ?? flavour.type;
  let parsed: KvmConfig;
  try {
    parsed = parseKvmConfig(flavour.type, config);
  } catch (err) {
    throw wrapError(name, 'configure', err);
  }
  const budgets = { ...DEFAULT_BUDGETS, ...options.budgets };
  const dialer = options.dialer ?? sshDialer(parsed, budgets);
  const core: Core = {
    name,
    flavour,
    config: parsed,
    hosts: new HostTable({
      dialer,
      spanPrefix: flavour.spanPrefix,
      ...(options.tracer ? { tracer: options.tracer } : {}),
    }),
    fetcher: options.fetcher ?? httpFetcher,
    ...(options.tracer ? { tracer: options.tracer } : {}),
    nameLock: new KeyedLock<string>(),
    imageLock: new KeyedLock<string>(),
    plans: compilePlans(parsed),
    planLock: new KeyedLock<string>(),
    pollIntervalMs: options.pollIntervalMs ?? 500,
    startTimeoutMs: options.startTimeoutMs ?? 15_000,
    progressIntervalMs: options.progressIntervalMs ?? 5_000,
    now: options.now ?? (() => new Date()),
  };
  // Never dials here; only warns about what will fail later.
  const log = (options.logger ?? silentLogger).child({ provider: name });
  if (!options.dialer) {
    // getBuiltinModule, not a static import: an ESM import of node:fs builds its whole
    // namespace, which loads fs/promises and node:stream with it.
    const { existsSync } = process.getBuiltinModule('node:fs');
    for (const [what, path] of [
      ['SSH key', parsed.sshKeyFile],
      ['known_hosts', parsed.insecureIgnoreHostKey ? undefined : parsed.knownHostsFile],
    ] as const) {
      if (path && !existsSync(path)) log.log(1, `${what} file is not readable yet`, { path });
    }
  }
  if (parsed.insecureIgnoreHostKey) log.log(1, 'host keys are not verified (insecureIgnoreHostKey)');

  return defineProvider({
    type: flavour.type,
    name,
    // Planned when any host names a plan: the kit's egress cases then apply to this entry.
    profile: {
      ...flavour.profile,
      egress: parsed.hosts.some((h) => h.egressPlan !== undefined) ? 'planned' : 'shared',
    },
    // No logger here: lines go to the call's logger only (the factory's logger gets construction
    // warnings), so a call without one stays silent.
    classify: (err, operation) => classify(PHASES[operation] ?? 'get', err),
    operationField: false,
    failureLogPrefix: flavour.type,
    // A get's or delete's lines carry the ID, and the instance it names (2.9).
    idFields: (id) => ({ id }),
    nameOfId: (id) => parseProviderId(id).name,
    context: (call): Context => ({ ...core, ...call, ...openOp(call) }),
    ops: {
      create: createInstance,
      get: getInstance,
      delete: deleteInstance,
      listByTag: listInstances,
      check: checkHosts,
      listSecondary,
      deleteSecondary,
    },
    close: () => core.hosts.close(),
    extra: { config: parsed },
  }) as KvmFamilyProvider;
}
