import {
  type CallOptions,
  type CreateRequest,
  ErrorCode,
  type Instance,
  isInstanceName,
  type LogFields,
  type Logger,
  notFoundError,
  type Provider,
  type ProviderError,
  type ProviderProfile,
  permanentError,
  type SecondaryResource,
  transientError,
} from '@egress-proxies/contract';
import {
  allocate,
  type EgressAllocation,
  type EgressPlan,
  loggerOf,
  macAddressFor,
  networkConfigV2,
  sleep,
  throwIfAborted,
  traceFields,
  withSpan,
} from '@egress-proxies/provider-utils';
import { type BackendAuth, type DomainInfo, ReferenceBackend } from './backend.js';
import { ReferenceBackendError } from './backend-error.js';
import { classifyBackendError } from './classify.js';
import { type ReferenceConfig, type ResolvedReferenceConfig, resolveReferenceConfig } from './config.js';
import { formatId, formatVolumeId, parseId, parseVolumeId } from './id.js';
import { KeyedLock } from './keyed-lock.js';
import { formatMark, type Mark, type MarkReading, readMark } from './mark.js';
import { referenceProfile } from './profile.js';
import { isUp, mapState } from './state.js';

export const REFERENCE_TYPE = 'reference';
/** The lock key of the egress plan; no instance name has a NUL, so it never meets a name's lock. */
const PLAN_LOCK = '\u0000egress-plan';

export interface ReferenceProviderOptions {
  /** The configured entry name, carried into every error and log line. */
  name: string;
  config: ReferenceConfig;
  /** The backend to talk to; a fresh in-memory cluster of the configured hosts when absent. */
  backend?: ReferenceBackend;
}

/** One operation in flight: where it logs, its signal and its host. */
export interface OpContext {
  log: Logger;
  signal: AbortSignal | undefined;
  host: string;
}

/** How create treats an existing domain with the requested name. */
export type Ownership = 'adopt' | 'foreign' | 'unmarked' | 'unreadable';

/**
 * The reference provider: a small VM provider over an in-memory hypervisor cluster. It is the
 * worked example for provider authors (every contract rule is met in plain sight) and passes the
 * whole conformance kit. Create blocks through image, volume, seed, define and start; ownership
 * is a metadata mark with uid, createdAt and installation; volumes are secondary resources.
 *
 * Protected methods are the seams the kit's own tests break on purpose (see test/mutants).
 */
export class ReferenceProvider implements Provider {
  readonly name: string;
  readonly type = REFERENCE_TYPE;
  readonly profile: ProviderProfile;
  readonly backend: ReferenceBackend;
  protected readonly config: ResolvedReferenceConfig;
  // Protected so the kit's own mutants can swap in a broken lock.
  protected readonly locks: KeyedLock = new KeyedLock();
  #closed = false;

  constructor(options: ReferenceProviderOptions) {
    if (!options.name) {
      throw new TypeError(
        `ReferenceProvider: name must be a non-empty string, got ${JSON.stringify(options.name)}`,
      );
    }
    this.name = options.name;
    this.config = resolveReferenceConfig(options.name, options.config);
    this.profile = referenceProfile(this.config.listPartial, this.config.egressPlan !== undefined);
    this.backend =
      options.backend ??
      new ReferenceBackend({
        hosts: this.config.hosts.map((h) => ({
          name: h.name,
          token: this.config.token.reveal(),
          pool: h.pool,
        })),
      });
  }

  // ------------------------------------------------------------------ create

  async create(req: CreateRequest, opts?: CallOptions): Promise<string> {
    const log = this.logger(opts);
    try {
      this.assertOpen(opts?.signal);
      const p = this.placement(req);
      log.log(2, 'reference create resolved', this.createDetail(req, p));
      const ctx: OpContext = { log, signal: opts?.signal, host: p.host };
      const id = await this.locks.run(req.name, () => this.ensure(ctx, req, p), opts?.signal);
      return id;
    } catch (err) {
      throw this.fail(log, 'create', err, { name: req?.name });
    }
  }

  /** Validates the request and resolves its placement against the catalogues, before any backend call. */
  protected placement(req: CreateRequest) {
    // isInstanceName refuses a non-string itself.
    if (!isInstanceName(req.name)) {
      throw permanentError(`request name ${JSON.stringify(req.name)} is not an instance name`, {
        code: ErrorCode.InvalidRequest,
      });
    }
    if (typeof req.uid !== 'string') {
      throw permanentError(`request uid must be a string, got ${typeof req.uid}`, {
        code: ErrorCode.InvalidRequest,
      });
    }
    const hosts = this.config.hosts;
    const { zone, machineType: machineKey, image: imageKey } = req.placement;
    if (zone === undefined && hosts.length > 1) {
      throw permanentError(`placement.zone is required with ${hosts.length} hosts (${this.hostNames()})`, {
        code: ErrorCode.InvalidPlacement,
      });
    }
    const host = zone === undefined ? hosts[0]! : hosts.find((h) => h.name === zone);
    if (!host) {
      throw permanentError(`unknown zone ${JSON.stringify(zone)}: configured hosts are ${this.hostNames()}`, {
        code: ErrorCode.InvalidPlacement,
      });
    }
    // An absent key fails the own-key test below, so it needs no branch of its own.
    const machine = this.config.machineTypes[machineKey!];
    if (!machine || !Object.hasOwn(this.config.machineTypes, machineKey!)) {
      throw permanentError(
        `unknown machine type ${JSON.stringify(machineKey)}: known are ${listed(Object.keys(this.config.machineTypes))}`,
        { code: ErrorCode.InvalidPlacement },
      );
    }
    // An absent key fails the own-key test below, so it needs no branch of its own.
    const image = this.config.images[imageKey!];
    if (!image || !Object.hasOwn(this.config.images, imageKey!)) {
      throw permanentError(
        `unknown image ${JSON.stringify(imageKey)}: known are ${listed(Object.keys(this.config.images))}`,
        {
          code: ErrorCode.InvalidPlacement,
        },
      );
    }
    return { host: host.name, pool: host.pool, machineKey: machineKey!, machine, imageKey: imageKey!, image };
  }

  /** The V2 detail line for a create: the placement as asked, never the cloud-init itself. */
  protected createDetail(req: CreateRequest, p: ReturnType<ReferenceProvider['placement']>): LogFields {
    return { host: p.host, name: req.name, placement: req.placement };
  }

  /** Adopts the instance when it exists and is ours, else makes it step by step; returns when it runs. */
  protected async ensure(ctx: OpContext, req: CreateRequest, p: ReturnType<ReferenceProvider['placement']>) {
    const id = formatId(p.host, req.name);
    const existing = await this.findExisting(ctx, req.name);
    if (existing) {
      const own = this.ownership(this.readMark(existing.metadata), req.uid);
      // No mark, or one that cannot be read (2.1 leaves a garbled mark's code open): not ours to take.
      if (own === 'unmarked' || own === 'unreadable') {
        throw permanentError(
          `domain ${req.name} on ${p.host} has no mark we can read (${own}); refusing to adopt it`,
          { code: ErrorCode.UnmarkedInstance },
        );
      }
      if (own === 'foreign') {
        throw permanentError(`domain ${req.name} on ${p.host} belongs to another owner (UID differs)`, {
          code: ErrorCode.ForeignInstance,
        });
      }
      if (!isUp(existing.state)) {
        if (existing.state !== 'nostate')
          await this.call(ctx, 'start', (a) => this.backend.startDomain(p.host, req.name, a), req.name);
        await this.waitRunning(ctx, req.name);
      }
      ctx.log.log(1, 'reference instance ensured running', { host: p.host, name: req.name });
      return id;
    }
    // No free-space precheck: the backend refuses a full pool itself (NO_SPACE, QuotaExceeded), and
    // a precheck would only race with other writers of the pool.
    const base = await this.call(
      ctx,
      'image',
      (a) => this.backend.ensureImage(p.host, p.imageKey, p.image, a),
      req.name,
    );
    const overlay = this.overlayVolumeName(req.name);
    try {
      await this.call(
        ctx,
        'volume',
        (a) =>
          this.backend.createVolume(
            p.host,
            { name: overlay, owner: req.name, sizeGiB: p.machine.diskGiB, backing: base },
            a,
          ),
        req.name,
      );
    } catch (err) {
      // A volume left by an earlier attempt is reused: creating it is the step that failed last time or before.
      if (!(ReferenceBackendError.isInstance(err) && err.code === 'VOLUME_EXISTS')) throw err;
    }
    const plan = this.config.egressPlan;
    // With a plan, reading what is held, picking and defining are one step for the whole provider:
    // two creates in this process never pick from the same reading.
    if (plan)
      await this.locks.run(PLAN_LOCK, () => this.defineWithEgress(ctx, req, p, overlay, plan), ctx.signal);
    else await this.seedAndDefine(ctx, req, p, overlay, undefined);
    await this.call(ctx, 'start', (a) => this.backend.startDomain(p.host, req.name, a), req.name);
    await this.waitRunning(ctx, req.name);
    ctx.log.log(1, 'reference instance ensured running', { host: p.host, name: req.name });
    return id;
  }

  /**
   * Allocates the instance's egress from what the marks on every host hold (nothing is kept in
   * memory: a restarted provider, or a create retried after a crash, reads the same record), then
   * seeds and defines it with the allocation in its mark.
   */
  protected async defineWithEgress(
    ctx: OpContext,
    req: CreateRequest,
    p: ReturnType<ReferenceProvider['placement']>,
    overlay: string,
    plan: EgressPlan,
  ): Promise<void> {
    const allocation = allocate(plan, req.name, await this.heldAddresses(ctx, req.name));
    await this.seedAndDefine(ctx, req, p, overlay, allocation);
  }

  /** Every address a marked domain on any configured host holds, with its holder's name. */
  protected async heldAddresses(ctx: OpContext, name: string): Promise<Map<string, string>> {
    const held = new Map<string, string>();
    for (const { name: host } of this.config.hosts) {
      const on: OpContext = { ...ctx, host };
      // A host that cannot be listed may hold addresses: allocating without it could duplicate one.
      // The calls' lines name the instance being created, as every line of its create does (2.9).
      for (const d of await this.call(on, 'list', (a) => this.backend.listDomains(host, a), name)) {
        if (!isInstanceName(d.name)) continue;
        const metadata = await this.call(
          on,
          'metadata',
          (a) => this.backend.domainMetadata(host, d.name, a),
          name,
        );
        const reading = this.readMark(metadata);
        if (reading.kind !== 'marked') continue;
        for (const address of Object.values(reading.mark.egress ?? {})) held.set(address, d.name);
      }
    }
    return held;
  }

  /** Writes the seed (user-data, and the network-config of an allocation) and defines the domain. */
  protected async seedAndDefine(
    ctx: OpContext,
    req: CreateRequest,
    p: ReturnType<ReferenceProvider['placement']>,
    overlay: string,
    allocation: EgressAllocation | undefined,
  ): Promise<void> {
    const seed = `${req.name}-seed.iso`;
    const mac = macAddressFor(req.name);
    // The seed is rewritten on every attempt: a cut-off upload must never be trusted.
    await this.call(
      ctx,
      'seed',
      (a) =>
        this.backend.writeSeed(
          p.host,
          {
            name: seed,
            owner: req.name,
            content: new TextEncoder().encode(req.cloudInit ?? ''),
            ...(allocation ? { networkConfig: networkConfigV2(mac, allocation) } : {}),
          },
          a,
        ),
      req.name,
    );
    const egress = allocation && {
      ...(allocation.ipv4 ? { ipv4: allocation.ipv4.address } : {}),
      ...(allocation.ipv6 ? { ipv6: allocation.ipv6.address } : {}),
    };
    const metadata = this.writeMark({
      uid: req.uid,
      createdAt: new Date(),
      ...(req.installation ? { installation: req.installation } : {}),
      ...(egress ? { egress } : {}),
    });
    await this.call(
      ctx,
      'define',
      (a) =>
        this.backend.defineDomain(
          p.host,
          {
            name: req.name,
            vcpus: p.machine.vcpus,
            memoryMiB: p.machine.memoryMiB,
            disks: [overlay, seed],
            metadata,
            // The network-config matches its NIC by this MAC.
            ...(allocation ? { macs: [mac] } : {}),
          },
          a,
        ),
      req.name,
    );
  }

  /** The domain called `name` on the operation's host, or undefined. */
  protected async findExisting(ctx: OpContext, name: string): Promise<DomainInfo | undefined> {
    try {
      return await this.call(ctx, 'lookup', (a) => this.backend.lookupDomain(ctx.host, name, a), name);
    } catch (err) {
      if (ReferenceBackendError.isInstance(err) && err.code === 'NO_DOMAIN') return undefined;
      throw err;
    }
  }

  /** Whether create may adopt a domain with this mark: ours with the same or an empty UID. */
  protected ownership(reading: MarkReading, uid: string): Ownership {
    if (reading.kind !== 'marked') return reading.kind;
    return reading.mark.uid === '' || reading.mark.uid === uid
      ? // Stryker disable next-line StringLiteral: ensure adopts on every answer but the three refusals
        'adopt'
      : 'foreign';
  }

  /** The metadata element create writes: the mark, escaped. */
  protected writeMark(mark: Mark): string {
    return formatMark(mark);
  }

  /** What a domain's metadata says about ownership. */
  protected readMark(metadata: string | undefined): MarkReading {
    return readMark(metadata);
  }

  /** The mark get, delete and listByTag treat a domain as ours by, or undefined: it carries our mark. */
  protected ourMark(reading: MarkReading): Mark | undefined {
    return reading.kind === 'marked' ? reading.mark : undefined;
  }

  /** The overlay volume's name: deterministic, so a retry finds the one an earlier attempt made. */
  protected overlayVolumeName(name: string): string {
    return `${name}-overlay.qcow2`;
  }

  /** Polls the domain state until it runs; Transient when it stops or the budget runs out. */
  protected async waitRunning(ctx: OpContext, name: string): Promise<void> {
    const deadline = Date.now() + this.config.startTimeoutMs;
    for (;;) {
      const state = await this.call(ctx, 'state', (a) => this.backend.domainState(ctx.host, name, a), name);
      if (isUp(state)) return;
      if (state === 'shutoff' || state === 'crashed') {
        throw transientError(`domain ${name} on ${ctx.host} went ${state} while starting`);
      }
      // Stryker disable next-line EqualityOperator: one millisecond of the start budget
      if (Date.now() >= deadline) {
        throw transientError(
          `domain ${name} on ${ctx.host} did not run within ${this.config.startTimeoutMs} ms (still ${state})`,
          {
            code: ErrorCode.Timeout,
          },
        );
      }
      await sleep(this.config.pollIntervalMs, ctx.signal);
    }
  }

  // ------------------------------------------------------------------ get

  async get(id: string, opts?: CallOptions): Promise<Instance> {
    const log = this.logger(opts);
    let named: string | undefined;
    try {
      this.assertOpen(opts?.signal);
      const { host, name } = parseId(id);
      named = name;
      this.configuredHost(host);
      const ctx: OpContext = { log, signal: opts?.signal, host };
      const dom = await this.call(ctx, 'lookup', (a) => this.backend.lookupDomain(host, name, a), name);
      // 2.2 leaves a get of a garbled mark open: it reads as no mark here, so NotFound.
      const mark = this.ourMark(this.readMark(dom.metadata));
      if (!mark) throw notFoundError(`domain ${name} on ${host} is not ours (no mark we can read)`);
      const state = await this.call(ctx, 'state', (a) => this.backend.domainState(host, name, a), name);
      const ip = isUp(state) ? await this.address(ctx, name) : undefined;
      const inst: Instance = {
        id,
        state: mapState(state, ip),
        // An address comes only with an up domain, which mapState then calls Running: no second test.
        ...(ip ? { ip } : {}),
        ...fromMark(mark),
      };
      log.log(1, 'reference instance fetched', { host, name, state: inst.state });
      log.log(2, 'reference instance detail', { host, name, domainState: state, ip });
      return inst;
    } catch (err) {
      throw this.fail(log, 'get', err, { id, name: named });
    }
  }

  /** The domain's address; a failing address source means "not yet", not an error. */
  protected async address(ctx: OpContext, name: string): Promise<string | undefined> {
    try {
      return await this.call(ctx, 'address', (a) => this.backend.domainAddress(ctx.host, name, a), name);
    } catch (err) {
      throwIfAborted(ctx.signal);
      ctx.log.log(1, 'reference address source failed', { host: ctx.host, name, error: this.codeOf(err) });
      return undefined;
    }
  }

  // ------------------------------------------------------------------ delete

  async delete(id: string, opts?: CallOptions): Promise<void> {
    const log = this.logger(opts);
    let named: string | undefined;
    try {
      this.assertOpen(opts?.signal);
      const { host, name } = parseId(id);
      named = name;
      if (!this.config.hosts.some((h) => h.name === host)) {
        // A host dropped from the config cannot be reached any more; refusing would wedge the finalizer.
        log.log(1, 'reference delete skipped: host not configured', { host, name });
        return;
      }
      const ctx: OpContext = { log, signal: opts?.signal, host };
      await this.locks.run(name, () => this.remove(ctx, name), opts?.signal);
    } catch (err) {
      throw this.fail(log, 'delete', err, { id, name: named });
    }
  }

  /** Stop, volumes, undefine: the volumes go before the domain so a failure leaves the domain for the next delete to find. */
  protected async remove(ctx: OpContext, name: string): Promise<void> {
    const dom = await this.findExisting(ctx, name);
    if (dom && !this.ourMark(this.readMark(dom.metadata))) {
      ctx.log.log(1, 'reference delete left a domain alone: not ours', { host: ctx.host, name });
      return;
    }
    if (dom) await this.stopBeforeRemove(ctx, name);
    await this.removeVolumes(ctx, name);
    if (dom)
      await this.tolerateGone(() =>
        this.call(ctx, 'undefine', (a) => this.backend.undefineDomain(ctx.host, name, a), name),
      );
    ctx.log.log(1, 'reference instance deleted', { host: ctx.host, name });
  }

  /** Stops the domain; one already shut off answers INVALID, which is as good as stopped. */
  protected async stopBeforeRemove(ctx: OpContext, name: string): Promise<void> {
    await this.tolerateGone(
      () => this.call(ctx, 'stop', (a) => this.backend.destroyDomain(ctx.host, name, a), name),
      'INVALID',
    );
  }

  /** Removes every volume labelled with `name` (base images carry no owner); a volume already gone is fine. */
  protected async removeVolumes(ctx: OpContext, name: string): Promise<void> {
    const volumes = await this.call(ctx, 'volumes', (a) => this.backend.listVolumes(ctx.host, a), name);
    for (const v of volumes) {
      if (v.owner !== name) continue;
      await this.tolerateGone(() =>
        this.call(ctx, 'delete-volume', (a) => this.backend.deleteVolume(ctx.host, v.name, a), name),
      );
    }
  }

  // ------------------------------------------------------------------ listByTag

  async listByTag(opts?: CallOptions): Promise<Instance[]> {
    const log = this.logger(opts);
    try {
      const signal = opts?.signal;
      this.assertOpen(signal);
      const out: Instance[] = [];
      let listedAny = false;
      for (const { name: host } of this.config.hosts) {
        const ctx: OpContext = { log, signal, host };
        const domains = await this.listHost(ctx);
        if (!domains) continue;
        listedAny = true;
        for (const d of domains) {
          if (!isInstanceName(d.name)) continue;
          let metadata: string | undefined;
          try {
            metadata = await this.call(
              ctx,
              'metadata',
              (a) => this.backend.domainMetadata(host, d.name, a),
              d.name,
            );
          } catch (err) {
            this.assertOpen(signal);
            log.log(1, 'reference list skipped a domain it could not read', {
              host,
              name: d.name,
              error: this.codeOf(err),
            });
            continue;
          }
          // An unreadable mark is not ours either; the metadata call's own line names the domain.
          const mark = this.ourMark(this.readMark(metadata));
          if (!mark) continue;
          // id, uid and createdAt come from the name and the mark only: no state or address call per domain.
          out.push({ id: formatId(host, d.name), state: mapState(d.state, undefined), ...fromMark(mark) });
        }
      }
      // Every host left out is not "nothing exists": the caller must not act on an empty answer.
      if (!listedAny)
        throw transientError('no configured host could be listed', { code: ErrorCode.Unreachable });
      log.log(1, `reference listed ${out.length} instances`);
      return out;
    } catch (err) {
      throw this.fail(log, 'listByTag', err, {});
    }
  }

  /** One host's domains, or undefined when the host is unreachable and the policy omits it. */
  protected async listHost(ctx: OpContext) {
    try {
      return await this.call(ctx, 'list', (a) => this.backend.listDomains(ctx.host, a));
    } catch (err) {
      throwIfAborted(ctx.signal);
      if (this.config.listPartial === 'fail-whole') throw err;
      ctx.log.log(1, 'reference list left out a host', { host: ctx.host, error: this.codeOf(err) });
      return undefined;
    }
  }

  // ------------------------------------------------------------------ secondary resources

  /** Volumes labelled with an instance name whose domain does not exist: what a failed create left. */
  async listSecondary(opts?: CallOptions): Promise<SecondaryResource[]> {
    const log = this.logger(opts);
    try {
      this.assertOpen(opts?.signal);
      const out: SecondaryResource[] = [];
      for (const { name: host } of this.config.hosts) {
        const ctx: OpContext = { log, signal: opts?.signal, host };
        const domains = await this.listHost(ctx);
        if (!domains) continue;
        const live = new Set(domains.map((d) => d.name));
        for (const v of await this.call(ctx, 'volumes', (a) => this.backend.listVolumes(host, a))) {
          // Base images carry no owner, so the owner test skips them.
          if (!v.owner || live.has(v.owner)) continue;
          out.push({ id: formatVolumeId(host, v.name), kind: v.kind, instanceName: v.owner });
        }
      }
      log.log(1, `reference listed ${out.length} secondary resources`);
      return out;
    } catch (err) {
      throw this.fail(log, 'listSecondary', err, {});
    }
  }

  /** Deletes one leftover volume; refuses (no-op) when its instance exists again. */
  async deleteSecondary(id: string, opts?: CallOptions): Promise<void> {
    const log = this.logger(opts);
    try {
      this.assertOpen(opts?.signal);
      const { host, volume } = parseVolumeId(id);
      this.configuredHost(host);
      const ctx: OpContext = { log, signal: opts?.signal, host };
      const v = (await this.call(ctx, 'volumes', (a) => this.backend.listVolumes(host, a))).find(
        (x) => x.name === volume,
      );
      if (!v) return;
      if (v.owner && (await this.findExisting(ctx, v.owner))) {
        log.log(1, 'reference kept a volume whose instance exists', { host, volume, instance: v.owner });
        return;
      }
      await this.tolerateGone(() =>
        this.call(ctx, 'delete-volume', (a) => this.backend.deleteVolume(host, volume, a)),
      );
      log.log(1, 'reference secondary resource deleted', { host, volume });
    } catch (err) {
      throw this.fail(log, 'deleteSecondary', err, { id });
    }
  }

  /** Whether close() was called; the Checker refuses too once it was. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Nothing to release in memory; later calls fail Permanent so a removed entry is not used by accident. */
  async close(): Promise<void> {
    this.#closed = true;
  }

  // ------------------------------------------------------------------ plumbing

  protected assertOpen(signal?: AbortSignal): void {
    throwIfAborted(signal);
    if (this.#closed) throw permanentError('the provider is closed', { code: ErrorCode.ProviderClosed });
  }

  /** The call's logger; its lines carry the caller's trace (a backend call's own span overrides it). */
  protected logger(opts?: CallOptions): Logger {
    return loggerOf(opts).child({ provider: this.name, type: this.type, ...traceFields() });
  }

  protected configuredHost(host: string): void {
    if (!this.config.hosts.some((h) => h.name === host)) {
      throw permanentError(
        `host ${JSON.stringify(host)} is not configured (configured: ${this.hostNames()})`,
        {
          code: ErrorCode.InvalidId,
        },
      );
    }
  }

  /** One backend call: a child span, a V1 line, the token and the signal passed down. */
  protected async call<T>(
    ctx: OpContext,
    step: string,
    fn: (auth: BackendAuth) => Promise<T>,
    name?: string,
  ): Promise<T> {
    const auth: BackendAuth = { token: this.config.token.reveal(), signal: ctx.signal };
    const started = performance.now();
    const fields: LogFields = { step, host: ctx.host, name };
    // The line is written inside the span, so its traceId/spanId are the backend call's own.
    return withSpan(`reference.${step}`, { 'reference.host': ctx.host, 'reference.step': step }, async () => {
      try {
        const v = await fn(auth);
        ctx.log.log(1, 'reference backend call', { ...fields, ...traceFields(), ms: this.since(started) });
        return v;
      } catch (err) {
        ctx.log.log(1, 'reference backend call', {
          ...fields,
          ...traceFields(),
          ms: this.since(started),
          error: this.codeOf(err),
        });
        throw err;
      }
    });
  }

  private since(started: number): number {
    return Math.round(performance.now() - started);
  }

  /** Runs `fn`; an object already gone (or the one more `code` the caller names) is no failure. */
  protected async tolerateGone(fn: () => Promise<unknown>, code?: string): Promise<void> {
    try {
      await fn();
    } catch (err) {
      if (!ReferenceBackendError.isInstance(err)) throw err;
      if (err.code !== 'NO_DOMAIN' && err.code !== 'NO_VOLUME' && err.code !== code) throw err;
    }
  }

  /** Classifies any failure for the contract boundary, with this entry's name. */
  protected classify(operation: string, err: unknown): ProviderError {
    return classifyBackendError(this.name, operation, err);
  }

  protected fail(log: Logger, operation: string, err: unknown, fields: LogFields): ProviderError {
    const e = this.classify(operation, err);
    log.log(1, `reference ${operation} failed`, { ...fields, kind: e.kind, code: e.code, error: e.reason });
    return e;
  }

  /** A short name of an error for a log field (the value is the provider's choice; 2.9 asks only for one). */
  protected codeOf(err: unknown): string {
    // Backend calls fail with the backend's error, or with the signal's reason when aborted.
    return ReferenceBackendError.isInstance(err) ? err.code : String(err);
  }

  /** The configured hosts' names, for a message. */
  protected hostNames(): string {
    return listed(this.config.hosts.map((h) => h.name));
  }
}

/** A list of names inside a message. */
function listed(names: readonly string[]): string {
  return names.join(', ');
}

/** What an Instance says from the mark alone: its UID, and what else the mark holds. */
function fromMark(mark: Mark): Pick<Instance, 'uid' | 'createdAt' | 'installation' | 'egress'> {
  return {
    uid: mark.uid,
    ...(mark.createdAt ? { createdAt: mark.createdAt } : {}),
    ...(mark.installation ? { installation: mark.installation } : {}),
    ...(mark.egress ? { egress: { ...mark.egress } } : {}),
  };
}
