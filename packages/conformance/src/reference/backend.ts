import { throwIfAborted } from '@egress-proxies/provider-utils';
import { createStepGate, type ManagedGate } from '../gate.js';
import { type ReferenceBackendCode, ReferenceBackendError } from './backend-error.js';

/** Domain states, as a libvirt-like hypervisor names them. */
export type DomainState =
  | 'nostate'
  | 'running'
  | 'blocked'
  | 'paused'
  | 'shutdown'
  | 'shutoff'
  | 'crashed'
  | 'pmsuspended';

export const DOMAIN_STATES: readonly DomainState[] = [
  'nostate',
  'running',
  'blocked',
  'paused',
  'shutdown',
  'shutoff',
  'crashed',
  'pmsuspended',
];

export type VolumeKind = 'base' | 'overlay' | 'seed';

/** What every backend call carries: the credential and the caller's signal. */
export interface BackendAuth {
  token: string;
  signal?: AbortSignal | undefined;
}

export interface DomainInfo {
  name: string;
  state: DomainState;
  /** The provider's metadata element, verbatim; absent when none was written. */
  metadata?: string;
}

export interface VolumeInfo {
  name: string;
  kind: VolumeKind;
  /** The instance name the volume was created for (a label on the volume); absent for base images. */
  owner?: string;
  sizeBytes: number;
}

export interface PoolInfo {
  name: string;
  active: boolean;
  capacityBytes: number;
  availableBytes: number;
}

/** Conditions `breakHost` understands (what a Checker can meet on a real host). */
export type HostCondition = 'unreachable' | 'auth' | 'pool-missing' | 'pool-inactive' | 'internal';
export const HOST_CONDITIONS: readonly HostCondition[] = [
  'unreachable',
  'auth',
  'pool-missing',
  'pool-inactive',
  'internal',
];

interface Domain {
  name: string;
  state: DomainState;
  metadata?: string;
  vcpus: number;
  memoryMiB: number;
  disks: string[];
  /** The MAC addresses of its NICs, as defined (one per NIC). */
  macs: string[];
  address?: string;
  /** Whether the backend hands out an address when the domain runs. */
  addressable: boolean;
  /** State reads left before a started domain leaves `nostate` (a boot in miniature). */
  bootReads: number;
  /** Undefined while running: it disappears once it stops (libvirt's transient domain). */
  transient?: boolean;
}

/** How a started domain misbehaves (`failStart`). */
export type StartFailure = 'crashes' | 'powers-off' | 'never-runs';

interface Volume extends VolumeInfo {
  content?: Uint8Array;
  /** A seed's network-config (cloud-init's NoCloud file of that name), when one was written. */
  networkConfig?: string;
  backing?: string;
}

/**
 * A pool's volumes with their total size kept as they are set and removed, so the free space a
 * create checks costs the same with ten volumes or ten thousand (a sum per request made a run of
 * N creates cost N^2).
 */
class Volumes extends Map<string, Volume> {
  usedBytes = 0;

  override set(name: string, v: Volume): this {
    this.usedBytes += v.sizeBytes - (super.get(name)?.sizeBytes ?? 0);
    return super.set(name, v);
  }

  override delete(name: string): boolean {
    this.usedBytes -= super.get(name)?.sizeBytes ?? 0;
    return super.delete(name);
  }

  override clear(): void {
    this.usedBytes = 0;
    super.clear();
  }
}

interface Host {
  name: string;
  token: string;
  pool: string;
  capacityBytes: number;
  poolActive: boolean;
  domains: Map<string, Domain>;
  volumes: Volumes;
  unreachable: boolean;
  busy: boolean;
  broken?: HostCondition;
  noSpace: boolean;
}

export interface ReferenceBackendHost {
  name: string;
  /** The credential this host accepts. */
  token: string;
  /** The storage pool's name; `default` when absent. */
  pool?: string;
  /** The pool's size; 200 GiB when absent. */
  poolGiB?: number;
}

export interface ReferenceBackendOptions {
  hosts: readonly ReferenceBackendHost[];
  /** State reads a started domain stays in `nostate` for; 1 when absent. */
  bootReads?: number;
}

export interface BackendCallRecord {
  step: string;
  host: string;
  instance?: string;
}

const GiB = 1024 ** 3;
const DOMAIN_STEPS = new Set([
  'lookup',
  'define',
  'start',
  'state',
  'address',
  'stop',
  'undefine',
  'metadata',
]);

/**
 * An in-memory cluster of hypervisor hosts: domains, storage pools and volumes, with the knobs a
 * conformance harness needs (faults per step, gates, unreachable or busy hosts, a call log and an
 * in-flight counter). Every call honours its signal and yields once, so concurrent callers
 * interleave as they would against a real backend.
 */
export class ReferenceBackend {
  readonly #hosts = new Map<string, Host>();
  readonly #bootReads: number;
  readonly #faults = new Map<string, { count: number; code: ReferenceBackendCode }[]>();
  readonly #gates = new Map<string, ManagedGate>();
  readonly #inFlight = new Map<string, number>();
  #calls: BackendCallRecord[] = [];
  #addresses = 0;
  readonly #startFailures = new Map<string, StartFailure>();

  constructor(options: ReferenceBackendOptions) {
    if (!options.hosts?.length) throw new TypeError('ReferenceBackend: at least one host is required');
    for (const h of options.hosts) {
      if (this.#hosts.has(h.name))
        throw new TypeError(`ReferenceBackend: host ${JSON.stringify(h.name)} is listed twice`);
      this.#hosts.set(h.name, {
        name: h.name,
        token: h.token,
        pool: h.pool ?? 'default',
        capacityBytes: (h.poolGiB ?? 200) * GiB,
        poolActive: true,
        domains: new Map(),
        volumes: new Volumes(),
        unreachable: false,
        busy: false,
        noSpace: false,
      });
    }
    this.#bootReads = options.bootReads ?? 1;
  }

  // ------------------------------------------------------------------ the native API

  probe(host: string, auth: BackendAuth): Promise<{ hostname: string; version: string }> {
    return this.#call('probe', host, undefined, auth, (h) => {
      if (h.broken === 'internal')
        throw this.#err('INTERNAL', 'probe', h.name, 'internal error: daemon restarting');
      return { hostname: `${h.name}.lab.internal`, version: '10.0.0' };
    });
  }

  poolInfo(host: string, pool: string, auth: BackendAuth): Promise<PoolInfo> {
    return this.#call('pool', host, undefined, auth, (h) => {
      if (h.broken === 'pool-missing' || pool !== h.pool) {
        throw this.#err('NO_POOL', 'pool', h.name, `storage pool '${pool}' not found`);
      }
      return {
        name: h.pool,
        active: h.poolActive && h.broken !== 'pool-inactive',
        capacityBytes: h.capacityBytes,
        availableBytes: this.#available(h),
      };
    });
  }

  lookupDomain(host: string, name: string, auth: BackendAuth): Promise<DomainInfo> {
    return this.#call('lookup', host, name, auth, (h) => {
      const d = this.#domain(h, name, 'lookup');
      return { name: d.name, state: d.state, ...(d.metadata === undefined ? {} : { metadata: d.metadata }) };
    });
  }

  listDomains(host: string, auth: BackendAuth): Promise<{ name: string; state: DomainState }[]> {
    return this.#call('list', host, undefined, auth, (h) =>
      [...h.domains.values()].map((d) => ({ name: d.name, state: d.state })),
    );
  }

  domainMetadata(host: string, name: string, auth: BackendAuth): Promise<string | undefined> {
    return this.#call('metadata', host, name, auth, (h) => this.#domain(h, name, 'metadata').metadata);
  }

  /** Makes sure the base image is in the pool ("downloads" it on first use) and returns its volume name. */
  ensureImage(
    host: string,
    key: string,
    image: { url: string; sizeGiB: number },
    auth: BackendAuth,
  ): Promise<string> {
    return this.#call('image', host, undefined, auth, (h) => {
      const name = `base-${key}.qcow2`;
      if (!h.volumes.has(name)) {
        const sizeBytes = image.sizeGiB * GiB;
        this.#reserve(h, sizeBytes, 'image');
        h.volumes.set(name, { name, kind: 'base', sizeBytes });
      }
      return name;
    });
  }

  /** Creates a copy-on-write overlay of `backing` (a base image), `sizeGiB` large, as `<capacity unit='G'>` says. */
  createVolume(
    host: string,
    spec: { name: string; owner: string; sizeGiB: number; backing: string },
    auth: BackendAuth,
  ): Promise<void> {
    return this.#call('volume', host, spec.owner, auth, (h) => {
      if (h.volumes.has(spec.name))
        throw this.#err('VOLUME_EXISTS', 'volume', h.name, `volume '${spec.name}' exists`);
      // An overlay without its backing file cannot be read, so the backend refuses to make one.
      if (!h.volumes.has(spec.backing)) {
        throw this.#err('NO_VOLUME', 'volume', h.name, `backing volume '${spec.backing}' not found`);
      }
      const sizeBytes = spec.sizeGiB * GiB;
      this.#reserve(h, sizeBytes, 'volume');
      h.volumes.set(spec.name, {
        name: spec.name,
        kind: 'overlay',
        owner: spec.owner,
        sizeBytes,
        backing: spec.backing,
      });
    });
  }

  /** Writes (or overwrites) a seed volume with `content` (user-data) and an optional network-config. */
  writeSeed(
    host: string,
    spec: { name: string; owner: string; content: Uint8Array; networkConfig?: string },
    auth: BackendAuth,
  ): Promise<void> {
    return this.#call('seed', host, spec.owner, auth, (h) => {
      const old = h.volumes.get(spec.name)?.sizeBytes ?? 0;
      this.#reserve(h, spec.content.length - old, 'seed');
      h.volumes.set(spec.name, {
        name: spec.name,
        kind: 'seed',
        owner: spec.owner,
        sizeBytes: spec.content.length,
        content: new Uint8Array(spec.content),
        ...(spec.networkConfig === undefined ? {} : { networkConfig: spec.networkConfig }),
      });
    });
  }

  defineDomain(
    host: string,
    spec: {
      name: string;
      vcpus: number;
      memoryMiB: number;
      disks: string[];
      metadata: string;
      /** NIC MACs; one NIC with a backend-chosen MAC when absent. */
      macs?: string[];
    },
    auth: BackendAuth,
  ): Promise<void> {
    return this.#call('define', host, spec.name, auth, (h) => {
      if (h.domains.has(spec.name))
        throw this.#err('DOMAIN_EXISTS', 'define', h.name, `domain '${spec.name}' exists`);
      if (spec.disks.length === 0)
        throw this.#err('INVALID', 'define', h.name, `domain '${spec.name}' has no boot disk`);
      for (const disk of spec.disks) {
        if (!h.volumes.has(disk))
          throw this.#err('NO_VOLUME', 'define', h.name, `volume '${disk}' not found`);
      }
      h.domains.set(spec.name, {
        name: spec.name,
        state: 'shutoff',
        metadata: spec.metadata,
        vcpus: spec.vcpus,
        memoryMiB: spec.memoryMiB,
        disks: [...spec.disks],
        macs: spec.macs ? [...spec.macs] : [this.#nextMac()],
        addressable: true,
        bootReads: 0,
      });
    });
  }

  startDomain(host: string, name: string, auth: BackendAuth): Promise<void> {
    return this.#call('start', host, name, auth, (h) => {
      const d = this.#domain(h, name, 'start');
      // A domain with no state yet is one being started: libvirt refuses to start it twice.
      if (d.state === 'running' || d.state === 'blocked' || d.state === 'nostate') {
        throw this.#err('INVALID', 'start', h.name, `domain '${name}' is already running`);
      }
      // Like QEMU, a domain whose disk file is gone does not start.
      const missing = d.disks.find((disk) => !h.volumes.has(disk));
      if (missing) throw this.#err('NO_VOLUME', 'start', h.name, `volume '${missing}' not found`);
      this.#boot(d);
    });
  }

  domainState(host: string, name: string, auth: BackendAuth): Promise<DomainState> {
    return this.#call('state', host, name, auth, (h) => {
      const d = this.#domain(h, name, 'state');
      if (d.state === 'nostate' && d.bootReads-- <= 0) this.#run(d);
      return d.state;
    });
  }

  domainAddress(host: string, name: string, auth: BackendAuth): Promise<string | undefined> {
    return this.#call('address', host, name, auth, (h) => {
      const d = this.#domain(h, name, 'address');
      return d.state === 'running' || d.state === 'blocked' ? d.address : undefined;
    });
  }

  /** Stops a domain at once (a hard power-off). */
  destroyDomain(host: string, name: string, auth: BackendAuth): Promise<void> {
    return this.#call('stop', host, name, auth, (h) => {
      const d = this.#domain(h, name, 'stop');
      if (d.state === 'shutoff')
        throw this.#err('INVALID', 'stop', h.name, `domain '${name}' is not running`);
      if (d.transient) h.domains.delete(name);
      d.state = 'shutoff';
      delete d.address;
    });
  }

  /** Removes a stopped domain; one still running only loses its definition and runs on (transient). */
  undefineDomain(host: string, name: string, auth: BackendAuth): Promise<void> {
    return this.#call('undefine', host, name, auth, (h) => {
      const d = this.#domain(h, name, 'undefine');
      if (d.state === 'shutoff' || d.state === 'crashed') h.domains.delete(name);
      else d.transient = true;
    });
  }

  listVolumes(host: string, auth: BackendAuth): Promise<VolumeInfo[]> {
    return this.#call('volumes', host, undefined, auth, (h) =>
      [...h.volumes.values()].map((v) => ({
        name: v.name,
        kind: v.kind,
        sizeBytes: v.sizeBytes,
        ...(v.owner ? { owner: v.owner } : {}),
      })),
    );
  }

  deleteVolume(host: string, name: string, auth: BackendAuth): Promise<void> {
    return this.#call('delete-volume', host, name, auth, (h) => {
      if (!h.volumes.delete(name))
        throw this.#err('NO_VOLUME', 'delete-volume', h.name, `volume '${name}' not found`);
    });
  }

  // ------------------------------------------------------------------ knobs

  /** Fails the next `count` calls of `step` with `code`. */
  failNext(step: string, count: number, code: ReferenceBackendCode): void {
    const list = this.#faults.get(step) ?? [];
    list.push({ count, code });
    this.#faults.set(step, list);
  }

  /** Holds every call of `step` until the returned gate is released. */
  block(step: string): ManagedGate {
    this.#gates.get(step)?.release();
    const gate = createStepGate();
    this.#gates.set(step, gate);
    return gate;
  }

  setUnreachable(on: boolean, host?: string): void {
    for (const h of this.#select(host)) h.unreachable = on;
  }

  setBusy(on: boolean, host?: string): void {
    for (const h of this.#select(host)) h.busy = on;
  }

  /** Leaves no free space in the pool (or frees it again). */
  setPoolFull(on: boolean, host?: string): void {
    for (const h of this.#select(host)) h.noSpace = on;
  }

  /** Until `reset`, every start of `name` crashes, powers off or never finishes. */
  failStart(name: string, failure: StartFailure): void {
    this.#startFailures.set(name, failure);
  }

  breakHost(host: string, condition: HostCondition | undefined): void {
    const h = this.#host(host);
    if (condition === undefined) delete h.broken;
    else h.broken = condition;
  }

  /** Clears faults, releases gates and restores every host. */
  reset(): void {
    this.#faults.clear();
    for (const g of this.#gates.values()) g.release();
    this.#gates.clear();
    for (const [name, failure] of this.#startFailures) {
      if (failure !== 'never-runs') continue;
      for (const h of this.#hosts.values()) {
        const d = h.domains.get(name);
        if (d?.state === 'nostate') d.bootReads = this.#bootReads;
      }
    }
    this.#startFailures.clear();
    for (const h of this.#hosts.values()) {
      h.unreachable = false;
      h.busy = false;
      h.noSpace = false;
      h.poolActive = true;
      delete h.broken;
    }
  }

  /** Puts a domain on a host directly, as a human or another tool would. */
  seedDomain(spec: {
    host: string;
    name: string;
    state: DomainState;
    metadata?: string;
    address?: boolean;
  }): void {
    const h = this.#host(spec.host);
    const d: Domain = {
      name: spec.name,
      state: spec.state,
      vcpus: 1,
      memoryMiB: 512,
      disks: [],
      macs: [this.#nextMac()],
      addressable: spec.address ?? true,
      // A seeded domain stays in the state it was given, however often it is read.
      bootReads: Number.POSITIVE_INFINITY,
      ...(spec.metadata === undefined ? {} : { metadata: spec.metadata }),
    };
    if ((d.state === 'running' || d.state === 'blocked') && d.addressable) d.address = this.#nextAddress();
    h.domains.set(spec.name, d);
  }

  setMetadata(host: string, name: string, metadata: string | undefined): void {
    const d = this.#mustDomain(host, name);
    if (metadata === undefined) delete d.metadata;
    else d.metadata = metadata;
  }

  /** Powers a domain off behind the provider's back. */
  stopOutOfBand(host: string, name: string): void {
    const d = this.#mustDomain(host, name);
    d.state = 'shutoff';
    delete d.address;
  }

  removeDomainOutOfBand(host: string, name: string): void {
    this.#host(host).domains.delete(name);
  }

  removeVolumesOutOfBand(host: string, owner: string): void {
    const h = this.#host(host);
    for (const [n, v] of h.volumes) if (v.owner === owner) h.volumes.delete(n);
  }

  /** Gives a domain an address (it must run to show it) or takes it away. */
  setAddress(host: string, name: string, present: boolean): void {
    const d = this.#mustDomain(host, name);
    d.addressable = present;
    if (!present) delete d.address;
    else if (d.state === 'running' || d.state === 'blocked') d.address ??= this.#nextAddress();
  }

  // ------------------------------------------------------------------ inspection

  hostNames(): string[] {
    return [...this.#hosts.keys()];
  }

  domains(): (DomainInfo & { host: string; address?: string; macs: string[] })[] {
    return [...this.#hosts.values()].flatMap((h) =>
      [...h.domains.values()].map((d) => ({
        host: h.name,
        name: d.name,
        state: d.state,
        macs: [...d.macs],
        ...(d.metadata === undefined ? {} : { metadata: d.metadata }),
        ...(d.address === undefined ? {} : { address: d.address }),
      })),
    );
  }

  volumes(): (VolumeInfo & { host: string; content?: Uint8Array; networkConfig?: string })[] {
    return [...this.#hosts.values()].flatMap((h) =>
      [...h.volumes.values()].map((v) => ({ host: h.name, ...v })),
    );
  }

  calls(): BackendCallRecord[] {
    return [...this.#calls];
  }

  clearCalls(): void {
    this.#calls = [];
  }

  inFlight(step?: string): number {
    if (step !== undefined) return this.#inFlight.get(step) ?? 0;
    let n = 0;
    for (const v of this.#inFlight.values()) n += v;
    return n;
  }

  // ------------------------------------------------------------------ internals

  async #call<T>(
    step: string,
    hostName: string,
    instance: string | undefined,
    auth: BackendAuth,
    fn: (h: Host) => T,
  ): Promise<T> {
    throwIfAborted(auth.signal);
    this.#calls.push({ step, host: hostName, ...(instance ? { instance } : {}) });
    this.#inFlight.set(step, (this.#inFlight.get(step) ?? 0) + 1);
    try {
      const gate = this.#gates.get(step);
      if (gate) await gate.wait(auth.signal);
      // One turn of the event loop, as a network round trip would take.
      await new Promise<void>((resolve) => setImmediate(resolve));
      throwIfAborted(auth.signal);
      const h = this.#hosts.get(hostName);
      if (!h) throw this.#err('NO_HOST', step, hostName, `unknown host '${hostName}'`);
      const fault = this.#takeFault(step);
      if (fault) throw this.#err(fault, step, h.name, `injected ${fault} at ${step}`);
      if (h.unreachable || h.broken === 'unreachable') {
        throw this.#err('UNREACHABLE', step, h.name, `connect to ${h.name}: connection refused`);
      }
      if (h.busy) throw this.#err('BUSY', step, h.name, `${h.name}: another operation holds the lock`);
      if (auth.token !== h.token || h.broken === 'auth') {
        throw this.#err('AUTH', step, h.name, `${h.name}: authentication failed`);
      }
      return fn(h);
    } finally {
      this.#inFlight.set(step, (this.#inFlight.get(step) ?? 1) - 1);
    }
  }

  #takeFault(step: string): ReferenceBackendCode | undefined {
    const list = this.#faults.get(step);
    const f = list?.[0];
    if (!f) return undefined;
    f.count -= 1;
    if (f.count <= 0) list!.shift();
    return f.code;
  }

  #err(code: ReferenceBackendCode, step: string, host: string, message: string): ReferenceBackendError {
    return new ReferenceBackendError(code, step, host, message);
  }

  #domain(h: Host, name: string, step: string): Domain {
    const d = h.domains.get(name);
    if (!d) throw this.#err('NO_DOMAIN', step, h.name, `domain '${name}' not found`);
    return d;
  }

  #host(name: string): Host {
    const h = this.#hosts.get(name);
    if (!h) throw new TypeError(`ReferenceBackend: unknown host ${JSON.stringify(name)}`);
    return h;
  }

  #mustDomain(host: string, name: string): Domain {
    const d = this.#host(host).domains.get(name);
    if (!d) throw new TypeError(`ReferenceBackend: no domain ${JSON.stringify(name)} on ${host}`);
    return d;
  }

  #select(host?: string): Host[] {
    return host === undefined ? [...this.#hosts.values()] : [this.#host(host)];
  }

  #available(h: Host): number {
    if (h.noSpace) return 0;
    return Math.max(0, h.capacityBytes - h.volumes.usedBytes);
  }

  #reserve(h: Host, bytes: number, step: string): void {
    if (bytes > this.#available(h)) {
      throw this.#err('NO_SPACE', step, h.name, `pool '${h.pool}' has no space for ${bytes} more bytes`);
    }
  }

  #boot(d: Domain): void {
    d.state = 'nostate';
    d.bootReads =
      this.#startFailures.get(d.name) === 'never-runs' ? Number.POSITIVE_INFINITY : this.#bootReads;
    if (d.bootReads <= 0) this.#run(d);
  }

  #run(d: Domain): void {
    const failure = this.#startFailures.get(d.name);
    if (failure === 'crashes' || failure === 'powers-off') {
      d.state = failure === 'crashes' ? 'crashed' : 'shutoff';
      return;
    }
    d.state = 'running';
    if (d.addressable) d.address ??= this.#nextAddress();
  }

  #nextAddress(): string {
    // TEST-NET-1 (RFC 5737): documentation addresses, never routed.
    this.#addresses += 1;
    return `192.0.2.${(this.#addresses % 250) + 1}`;
  }

  #macs = 0;

  /** A MAC of the backend's own choosing, as libvirt gives a NIC defined without one. */
  #nextMac(): string {
    this.#macs += 1;
    return `52:54:00:ff:${((this.#macs >> 8) & 0xff).toString(16).padStart(2, '0')}:${(this.#macs & 0xff).toString(16).padStart(2, '0')}`;
  }
}

/** The native code a step answers "not found" with. */
export function notFoundCodeFor(step: string): ReferenceBackendCode {
  return DOMAIN_STEPS.has(step) ? 'NO_DOMAIN' : 'NO_VOLUME';
}
