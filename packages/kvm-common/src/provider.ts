import {
  type CallOptions,
  type Checker,
  type CheckResult,
  type CreateRequest,
  type Instance,
  type Logger,
  type Provider,
  type ProviderProfile,
  type SecondaryResource,
  wrapError,
} from '@egress-proxies/contract';
import { KeyedLock } from '@egress-proxies/keyedlock';
import { createOperationRunner, instanceFields, silentLogger } from '@egress-proxies/provider-utils';
import type { Tracer } from '@opentelemetry/api';
import type { Dialer } from './backend.js';
import { checkHosts } from './check.js';
import { type KvmConfig, parseKvmConfig } from './config.js';
import { type Core, PHASES, runOp } from './core.js';
import { createInstance, validateCreate } from './create.js';
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

/** A kvm-family provider: one class, parameterised by the flavour. */
/** The fields of a get's or delete's lines: the ID, and the instance it names (2.9). */
const about = (id: string) => ({ id, ...instanceFields(() => parseProviderId(id).name) });

export class KvmFamilyProvider implements Provider, Checker {
  readonly name: string;
  readonly type: string;
  readonly profile: ProviderProfile;
  readonly #core: Core;

  constructor(flavour: KvmFlavour, config: unknown, options: KvmProviderOptions = {}) {
    const name = options.name ?? flavour.type;
    let parsed: KvmConfig;
    try {
      parsed = parseKvmConfig(flavour.type, config);
    } catch (err) {
      throw wrapError(name, 'configure', err);
    }
    const budgets = { ...DEFAULT_BUDGETS, ...options.budgets };
    this.name = name;
    this.type = flavour.type;
    // Planned when any host names a plan: the kit's egress cases then apply to this entry.
    this.profile = {
      ...flavour.profile,
      egress: parsed.hosts.some((h) => h.egressPlan !== undefined) ? 'planned' : 'shared',
    };
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
      // Lines go to the call's logger only (the factory's logger gets construction warnings):
      // a call without one stays silent.
      runner: createOperationRunner({
        name,
        isClosed: () => core.closed,
        classify: (err, operation) => classify(PHASES[operation] ?? 'get', err),
        operationField: false,
        failureLogPrefix: flavour.type,
      }),
      closed: false,
    };
    this.#core = core;
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
  }

  /** The validated config with defaults filled. */
  get config(): KvmConfig {
    return this.#core.config;
  }

  create(req: CreateRequest, opts?: CallOptions): Promise<string> {
    const core = this.#core;
    return runOp(core, 'create', opts, { name: req?.name }, async (op) => {
      const placement = validateCreate(core, req);
      const key = `${placement.host.name}/${req.name}`;
      return core.nameLock.withLock(
        key,
        // The lock is held until the last backend step really ended, even when the caller
        // stopped waiting: a retry must not race a step still running on the host.
        () => createInstance(core, req, placement, op).finally(() => op.drain()),
        op.signal ? { signal: op.signal } : {},
      );
    });
  }

  get(id: string, opts?: CallOptions): Promise<Instance> {
    return runOp(this.#core, 'get', opts, about(id), (op) => getInstance(this.#core, id, op));
  }

  delete(id: string, opts?: CallOptions): Promise<void> {
    return runOp(this.#core, 'delete', opts, about(id), (op) => deleteInstance(this.#core, id, op));
  }

  listByTag(opts?: CallOptions): Promise<Instance[]> {
    return runOp(this.#core, 'listByTag', opts, {}, (op) => listInstances(this.#core, op));
  }

  listSecondary(opts?: CallOptions): Promise<SecondaryResource[]> {
    return runOp(this.#core, 'listSecondary', opts, {}, (op) => listSecondary(this.#core, op));
  }

  deleteSecondary(id: string, opts?: CallOptions): Promise<void> {
    return runOp(this.#core, 'deleteSecondary', opts, { id }, (op) => deleteSecondary(this.#core, id, op));
  }

  /** One result per configured host, in config order; rejects only after close. */
  check(opts?: CallOptions): Promise<CheckResult[]> {
    if (this.#core.closed) return Promise.reject(this.#core.runner.closedError('check'));
    return checkHosts(this.#core, opts);
  }

  async close(): Promise<void> {
    this.#core.closed = true;
    await this.#core.hosts.close();
  }
}
