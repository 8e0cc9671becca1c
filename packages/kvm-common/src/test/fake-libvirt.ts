import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { StartFault } from '@egress-proxies/conformance';
import { ErrorCode, transientError } from '@egress-proxies/contract';
import { abortReason } from '@egress-proxies/provider-utils';
import type { Domain, DomainInterface, StoragePool, StorageVol } from 'libvirt-rpc-ts';
import {
  ConnectionClosedError,
  DomainState,
  DomainUndefineFlags,
  ErrorNumber,
  LibvirtError,
  SshAuthenticationError,
  SshHostKeyMismatchError,
  StoragePoolState,
  TransportError,
} from 'libvirt-rpc-ts/codes';
import type { BackendCallOptions, Dialer, KvmBackend } from '../backend.js';
import type { KvmHost } from '../config.js';
import type { AddressSource } from '../flavour.js';
import { secondaryOf } from '../names.js';
import { escapeXml, parseAttributes } from '../xml-text.js';

export type FakeFault = 'unreachable' | 'busy' | 'not-found' | 'internal' | 'out-of-capacity';

/** Conditions `breakHost` understands (what a Checker must tell apart). */
export const FAKE_HOST_CONDITIONS = [
  'unreachable',
  'auth',
  'host-key',
  'credentials',
  'pool-missing',
  'pool-inactive',
  'internal',
  'forbidden',
] as const;
export type FakeHostCondition = (typeof FAKE_HOST_CONDITIONS)[number];

export interface FakeVolume {
  name: string;
  pool: string;
  key: string;
  path: string;
  capacity: number;
  format: string;
  backingPath?: string;
  data?: Buffer;
}

export interface FakePool {
  name: string;
  uuid: string;
  path: string;
  state: number;
  capacity: number;
  full: boolean;
  volumes: Map<string, FakeVolume>;
}

export interface FakeDomain {
  name: string;
  uuid: string;
  id: number;
  state: number;
  xml: string;
  /** namespace URI -> the element as libvirt hands it back (without the xmlns declaration). */
  metadata: Map<string, string>;
  addresses: Partial<Record<AddressSource, string>>;
  uefi: boolean;
}

export interface FakeHost {
  name: string;
  hostname: string;
  domains: Map<string, FakeDomain>;
  pools: Map<string, FakePool>;
  unreachable: boolean;
  busy: boolean;
  condition?: FakeHostCondition;
}

export interface FakeCall {
  step: string;
  host: string;
  instance?: string;
  connection: number;
}

interface Gate {
  held: number;
  released: boolean;
  waiters: (() => void)[];
  reachedResolve: () => void;
  reached: Promise<void>;
}

const SOURCE_BY_NUMBER: AddressSource[] = ['lease', 'agent', 'arp'];

export function libvirtError(code: number, message: string): LibvirtError {
  return new LibvirtError({
    code,
    domain: 0,
    message,
    level: 2,
    dom: null,
    str1: null,
    str2: null,
    str3: null,
    int1: 0,
    int2: 0,
    net: null,
  });
}

const GiB = 1024 ** 3;
const UNIT: Record<string, number> = {
  bytes: 1,
  b: 1,
  kib: 1024,
  k: 1024,
  mib: 1024 ** 2,
  m: 1024 ** 2,
  gib: GiB,
  g: GiB,
};

function tag(xml: string, name: string): string | undefined {
  return new RegExp(`<${name}\\b[^>]*>([^<]*)</${name}>`).exec(xml)?.[1];
}

export interface FakeLibvirtOptions {
  hosts: readonly { name: string; pool: string }[];
  /** Which address source a started domain's address appears in. */
  addressSource?: AddressSource;
  poolCapacityBytes?: number;
}

/**
 * A stateful in-memory libvirt: hosts with domains, pools and volumes, faults and gates per
 * step (step = seam method name), and a call log. `dialer()` gives connections implementing the
 * same seam the production adapter implements.
 */
export class FakeLibvirt {
  readonly hosts = new Map<string, FakeHost>();
  readonly #calls: FakeCall[] = [];
  readonly #faults = new Map<string, { count: number; fault: FakeFault }[]>();
  readonly #gates = new Map<string, Gate>();
  readonly #inFlight = new Map<string, number>();
  readonly addressSource: AddressSource;
  #connections = 0;
  #nextId = 1;
  #address = 10;
  dials = 0;

  constructor(opts: FakeLibvirtOptions) {
    this.addressSource = opts.addressSource ?? 'agent';
    for (const h of opts.hosts) {
      this.hosts.set(h.name, {
        name: h.name,
        hostname: `${h.name}.fake`,
        domains: new Map(),
        pools: new Map([
          [
            h.pool,
            {
              name: h.pool,
              uuid: randomUUID(),
              path: `/var/lib/libvirt/${h.name}/${h.pool}`,
              state: StoragePoolState.RUNNING,
              capacity: opts.poolCapacityBytes ?? 200 * GiB,
              full: false,
              volumes: new Map(),
            },
          ],
        ]),
        unreachable: false,
        busy: false,
      });
    }
  }

  host(name: string): FakeHost {
    const h = this.hosts.get(name);
    if (!h) throw new TypeError(`fake libvirt has no host ${JSON.stringify(name)}`);
    return h;
  }

  // ---- control
  failNext(step: string, count: number, fault: FakeFault): void {
    const list = this.#faults.get(step) ?? [];
    list.push({ count, fault });
    this.#faults.set(step, list);
  }

  block(step: string) {
    let reachedResolve = () => {};
    const reached = new Promise<void>((r) => {
      reachedResolve = r;
    });
    const gate: Gate = { held: 0, released: false, waiters: [], reachedResolve, reached };
    this.#gates.set(step, gate);
    const release = () => {
      gate.released = true;
      if (this.#gates.get(step) === gate) this.#gates.delete(step);
      for (const w of gate.waiters.splice(0)) w();
    };
    return {
      reached,
      get held() {
        return gate.held;
      },
      release,
    };
  }

  calls(): FakeCall[] {
    return [...this.#calls];
  }
  clearCalls(): void {
    this.#calls.length = 0;
  }
  inFlight(step?: string): number {
    if (step) return this.#inFlight.get(step) ?? 0;
    let n = 0;
    for (const v of this.#inFlight.values()) n += v;
    return n;
  }

  reset(): void {
    // A domain stuck starting gets there now.
    for (const [name, failure] of this.startFailures) {
      if (failure !== 'never-runs') continue;
      for (const h of this.hosts.values()) {
        const d = h.domains.get(name);
        if (d?.state !== DomainState.NOSTATE) continue;
        d.state = DomainState.RUNNING;
        d.addresses[this.addressSource] ??= this.nextAddress();
      }
    }
    this.startFailures.clear();
    this.#faults.clear();
    for (const [step, g] of [...this.#gates]) {
      g.released = true;
      this.#gates.delete(step);
      for (const w of g.waiters.splice(0)) w();
    }
    for (const h of this.hosts.values()) {
      h.unreachable = false;
      h.busy = false;
      delete h.condition;
      for (const p of h.pools.values()) p.full = false;
    }
  }

  nextAddress(): string {
    this.#address += 1;
    return `192.0.2.${this.#address % 250}`;
  }

  // ---- the wire: one call of one step
  async rpc<T>(
    conn: FakeConnection,
    step: string,
    instance: string | undefined,
    o: BackendCallOptions | undefined,
    fn: () => T | Promise<T>,
  ): Promise<T> {
    if (o?.signal?.aborted) throw abortReason(o.signal);
    if (!conn.isOpen) throw new ConnectionClosedError('the fake connection is closed');
    const host = this.host(conn.hostName);
    this.#calls.push({ step, host: host.name, ...(instance ? { instance } : {}), connection: conn.serial });
    this.#inFlight.set(step, (this.#inFlight.get(step) ?? 0) + 1);
    try {
      const gate = this.#gates.get(step);
      if (gate && !gate.released) {
        gate.held += 1;
        gate.reachedResolve();
        try {
          await new Promise<void>((resolve, reject) => {
            gate.waiters.push(resolve);
            o?.signal?.addEventListener('abort', () => reject(abortReason(o.signal!)), { once: true });
          });
        } finally {
          gate.held -= 1;
        }
      }
      if (host.unreachable) {
        conn.kill();
        throw new ConnectionClosedError(`the connection to ${host.name} was lost`);
      }
      if (host.busy) throw libvirtError(ErrorNumber.VIR_ERR_RESOURCE_BUSY, 'resource busy');
      const faults = this.#faults.get(step);
      const f = faults?.[0];
      if (f) {
        f.count -= 1;
        if (f.count <= 0) faults!.shift();
        this.throwFault(conn, step, f.fault);
      }
      return await fn();
    } finally {
      this.#inFlight.set(step, (this.#inFlight.get(step) ?? 1) - 1);
    }
  }

  throwFault(conn: FakeConnection, step: string, fault: FakeFault): never {
    switch (fault) {
      case 'unreachable':
        conn.kill();
        throw new ConnectionClosedError(`the connection to ${conn.hostName} was lost`);
      case 'busy':
        throw libvirtError(ErrorNumber.VIR_ERR_RESOURCE_BUSY, 'resource busy');
      case 'not-found':
        if (step.startsWith('storagePool'))
          throw libvirtError(ErrorNumber.VIR_ERR_NO_STORAGE_POOL, 'storage pool not found');
        if (step.startsWith('storageVol'))
          throw libvirtError(ErrorNumber.VIR_ERR_NO_STORAGE_VOL, 'storage volume not found');
        throw libvirtError(ErrorNumber.VIR_ERR_NO_DOMAIN, 'domain not found');
      case 'out-of-capacity':
        // What libvirtd reports when the pool's filesystem is full (a system error, errno text last).
        throw libvirtError(
          ErrorNumber.VIR_ERR_SYSTEM_ERROR,
          `cannot allocate 4294967296 bytes in file '/var/lib/libvirt/images/${step}.qcow2': No space left on device`,
        );
      default:
        throw libvirtError(ErrorNumber.VIR_ERR_INTERNAL_ERROR, 'internal error (injected)');
    }
  }

  /** `beforeDial` runs first on every dial (the harness reads the credential files there, as the SSH dialer does). */
  dialer(beforeDial?: () => Promise<unknown>): Dialer {
    return {
      dial: async (host: KvmHost, o?: BackendCallOptions) => {
        if (o?.signal?.aborted) throw abortReason(o.signal);
        await beforeDial?.();
        const h = this.host(host.name);
        this.dials += 1;
        if (h.unreachable || h.condition === 'unreachable')
          throw new TransportError(`connect ECONNREFUSED ${host.address}`);
        if (h.condition === 'auth')
          throw new SshAuthenticationError(`${host.address}: the server refused the key of ${host.user}`);
        if (h.condition === 'host-key')
          throw new SshHostKeyMismatchError(`the host key of ${host.address} does not match known_hosts`);
        if (h.condition === 'credentials')
          throw transientError('cannot read the SSH key file (ENOENT)', {
            code: ErrorCode.CredentialsUnavailable,
          });
        this.#connections += 1;
        return new FakeConnection(this, host.name, this.#connections);
      },
    };
  }

  // ---- state helpers used by connections and the control
  pool(hostName: string, name: string): FakePool {
    const h = this.host(hostName);
    const p = h.pools.get(name);
    if (!p || h.condition === 'pool-missing')
      throw libvirtError(
        ErrorNumber.VIR_ERR_NO_STORAGE_POOL,
        `Storage pool not found: no storage pool with matching name '${name}'`,
      );
    return p;
  }

  domain(hostName: string, name: string): FakeDomain {
    const d = this.host(hostName).domains.get(name);
    if (!d)
      throw libvirtError(
        ErrorNumber.VIR_ERR_NO_DOMAIN,
        `Domain not found: no domain with matching name '${name}'`,
      );
    return d;
  }

  volume(hostName: string, pool: string, name: string): FakeVolume {
    const v = this.pool(hostName, pool).volumes.get(name);
    if (!v)
      throw libvirtError(
        ErrorNumber.VIR_ERR_NO_STORAGE_VOL,
        `Storage volume not found: no storage vol with matching name '${name}'`,
      );
    return v;
  }

  allocated(p: FakePool): number {
    let n = 0;
    for (const v of p.volumes.values()) n += v.data?.length ?? (v.backingPath ? 196_608 : v.capacity);
    return n;
  }

  defineDomain(hostName: string, xml: string): FakeDomain {
    const name = tag(xml, 'name');
    if (!name) throw libvirtError(ErrorNumber.VIR_ERR_XML_ERROR, 'XML error: missing domain name');
    const h = this.host(hostName);
    const metadata = new Map<string, string>();
    const meta = /<metadata>([\s\S]*)<\/metadata>/.exec(xml)?.[1] ?? '';
    const el = /^\s*<([A-Za-z_][\w.-]*):([A-Za-z_][\w.-]*)((?:\s+[^<>]*?)?)\s*\/>\s*$/.exec(meta);
    if (el) {
      const attrs = parseAttributes(el[3] ?? '');
      const uri = attrs?.get(`xmlns:${el[1]}`);
      if (!attrs || !uri)
        throw libvirtError(ErrorNumber.VIR_ERR_XML_ERROR, 'XML error: metadata element without namespace');
      attrs.delete(`xmlns:${el[1]}`);
      // libvirt hands the element back re-serialised, its attribute values escaped again.
      const rest = [...attrs].map(([k, v]) => `${k}="${escapeXml(v)}"`).join(' ');
      metadata.set(uri, `<${el[1]}:${el[2]} ${rest}/>`);
    }
    const prev = h.domains.get(name);
    const d: FakeDomain = prev ?? {
      name,
      uuid: randomUUID(),
      id: -1,
      state: DomainState.SHUTOFF,
      xml,
      metadata,
      addresses: {},
      uefi: false,
    };
    d.xml = xml;
    d.metadata = metadata;
    d.uefi = /<os\b[^>]*firmware="efi"/.test(xml);
    h.domains.set(name, d);
    return d;
  }

  /** Domain names whose every start crashes, powers off or never finishes, until `reset`. */
  readonly startFailures = new Map<string, StartFault>();

  startDomain(hostName: string, d: FakeDomain): void {
    if (d.state === DomainState.RUNNING || d.state === DomainState.BLOCKED || d.state === DomainState.PAUSED)
      throw libvirtError(
        ErrorNumber.VIR_ERR_OPERATION_INVALID,
        'Requested operation is not valid: domain is already running',
      );
    const h = this.host(hostName);
    for (const m of d.xml.matchAll(/<source file="([^"]+)"\/>/g)) {
      const path = m[1];
      const found = [...h.pools.values()].some((p) => [...p.volumes.values()].some((v) => v.path === path));
      if (!found)
        throw libvirtError(ErrorNumber.VIR_ERR_OPERATION_FAILED, `Cannot access storage file '${path}'`);
    }
    const failure = this.startFailures.get(d.name);
    if (failure === 'crashes' || failure === 'powers-off') {
      // The start succeeds; the guest is gone again at once.
      d.state = failure === 'crashes' ? DomainState.CRASHED : DomainState.SHUTOFF;
      d.id = -1;
      return;
    }
    d.id = this.#nextId++;
    if (failure === 'never-runs') {
      d.state = DomainState.NOSTATE;
      return;
    }
    d.state = DomainState.RUNNING;
    if (!d.addresses[this.addressSource]) d.addresses[this.addressSource] = this.nextAddress();
  }

  handle(d: FakeDomain): Domain {
    return { name: d.name, uuid: d.uuid, id: d.id };
  }
  poolHandle(p: FakePool): StoragePool {
    return { name: p.name, uuid: p.uuid };
  }
  volHandle(v: FakeVolume): StorageVol {
    return { pool: v.pool, name: v.name, key: v.key };
  }
}

const instanceOfVolume = (name: string) => secondaryOf(name)?.instance;

/** One fake connection to one host. */
export class FakeConnection implements KvmBackend {
  #open = true;
  constructor(
    private readonly fake: FakeLibvirt,
    readonly hostName: string,
    readonly serial: number,
  ) {}

  get isOpen(): boolean {
    return this.#open;
  }
  kill(): void {
    this.#open = false;
  }
  async close(): Promise<void> {
    this.#open = false;
  }

  #rpc<T>(
    step: string,
    instance: string | undefined,
    o: BackendCallOptions | undefined,
    fn: () => T | Promise<T>,
  ) {
    return this.fake.rpc(this, step, instance, o, fn);
  }
  #h() {
    return this.fake.host(this.hostName);
  }

  connectGetLibVersion(o?: BackendCallOptions) {
    return this.#rpc('connectGetLibVersion', undefined, o, () => {
      const c = this.#h().condition;
      if (c === 'internal') throw libvirtError(ErrorNumber.VIR_ERR_INTERNAL_ERROR, 'internal error');
      if (c === 'forbidden') throw libvirtError(ErrorNumber.VIR_ERR_ACCESS_DENIED, 'access denied');
      return 9_000_000;
    });
  }
  connectGetHostname(o?: BackendCallOptions) {
    return this.#rpc('connectGetHostname', undefined, o, () => this.#h().hostname);
  }
  connectListAllDomains(o?: BackendCallOptions) {
    return this.#rpc('connectListAllDomains', undefined, o, () =>
      [...this.#h().domains.values()].map((d) => this.fake.handle(d)),
    );
  }
  domainLookupByName(name: string, o?: BackendCallOptions) {
    return this.#rpc('domainLookupByName', name, o, () =>
      this.fake.handle(this.fake.domain(this.hostName, name)),
    );
  }
  domainDefineXML(xml: string, o?: BackendCallOptions) {
    return this.#rpc('domainDefineXML', tag(xml, 'name'), o, () =>
      this.fake.handle(this.fake.defineDomain(this.hostName, xml)),
    );
  }
  domainCreate(dom: Domain, o?: BackendCallOptions) {
    return this.#rpc('domainCreate', dom.name, o, () => {
      this.fake.startDomain(this.hostName, this.fake.domain(this.hostName, dom.name));
    });
  }
  domainResume(dom: Domain, o?: BackendCallOptions) {
    return this.#rpc('domainResume', dom.name, o, () => {
      const d = this.fake.domain(this.hostName, dom.name);
      if (d.state !== DomainState.PAUSED)
        throw libvirtError(ErrorNumber.VIR_ERR_OPERATION_INVALID, 'domain is not paused');
      d.state = DomainState.RUNNING;
    });
  }
  domainDestroy(dom: Domain, o?: BackendCallOptions) {
    return this.#rpc('domainDestroy', dom.name, o, () => {
      const d = this.fake.domain(this.hostName, dom.name);
      if (d.id < 0) throw libvirtError(ErrorNumber.VIR_ERR_OPERATION_INVALID, 'domain is not running');
      d.state = DomainState.SHUTOFF;
      d.id = -1;
    });
  }
  domainUndefineFlags(dom: Domain, flags: number, o?: BackendCallOptions) {
    return this.#rpc('domainUndefineFlags', dom.name, o, () => {
      const d = this.fake.domain(this.hostName, dom.name);
      if (d.uefi && !(flags & DomainUndefineFlags.NVRAM))
        throw libvirtError(ErrorNumber.VIR_ERR_OPERATION_INVALID, 'cannot undefine domain with nvram');
      this.#h().domains.delete(d.name);
    });
  }
  domainGetState(dom: Domain, o?: BackendCallOptions) {
    return this.#rpc('domainGetState', dom.name, o, () => ({
      state: this.fake.domain(this.hostName, dom.name).state,
      reason: 1,
    }));
  }
  domainGetMetadata(dom: Domain, uri: string, o?: BackendCallOptions) {
    return this.#rpc('domainGetMetadata', dom.name, o, () => {
      const m = this.fake.domain(this.hostName, dom.name).metadata.get(uri);
      if (m === undefined)
        throw libvirtError(
          ErrorNumber.VIR_ERR_NO_DOMAIN_METADATA,
          'metadata not found: Requested metadata element is not present',
        );
      return m;
    });
  }
  domainInterfaceAddresses(dom: Domain, source: number, o?: BackendCallOptions) {
    return this.#rpc('domainInterfaceAddresses', dom.name, o, (): DomainInterface[] => {
      const d = this.fake.domain(this.hostName, dom.name);
      if (d.id < 0) throw libvirtError(ErrorNumber.VIR_ERR_OPERATION_INVALID, 'domain is not running');
      const addr = d.addresses[SOURCE_BY_NUMBER[source] ?? 'lease'];
      return addr
        ? [{ name: 'vnet0', hwaddr: '52:54:00:00:00:01', addrs: [{ type: 0, addr, prefix: 24 }] }]
        : [];
    });
  }
  storagePoolLookupByName(name: string, o?: BackendCallOptions) {
    return this.#rpc('storagePoolLookupByName', undefined, o, () =>
      this.fake.poolHandle(this.fake.pool(this.hostName, name)),
    );
  }
  storagePoolGetInfo(pool: StoragePool, o?: BackendCallOptions) {
    return this.#rpc('storagePoolGetInfo', undefined, o, () => {
      const p = this.fake.pool(this.hostName, pool.name);
      const allocation = this.fake.allocated(p);
      return {
        state: this.#h().condition === 'pool-inactive' ? StoragePoolState.INACTIVE : p.state,
        capacity: BigInt(p.capacity),
        allocation: BigInt(allocation),
        available: BigInt(p.full ? 0 : Math.max(0, p.capacity - allocation)),
      };
    });
  }
  storagePoolRefresh(pool: StoragePool, o?: BackendCallOptions) {
    return this.#rpc('storagePoolRefresh', undefined, o, () => {
      this.fake.pool(this.hostName, pool.name);
    });
  }
  storagePoolListAllVolumes(pool: StoragePool, o?: BackendCallOptions) {
    return this.#rpc('storagePoolListAllVolumes', undefined, o, () =>
      [...this.fake.pool(this.hostName, pool.name).volumes.values()].map((v) => this.fake.volHandle(v)),
    );
  }
  storageVolLookupByName(pool: StoragePool, name: string, o?: BackendCallOptions) {
    return this.#rpc('storageVolLookupByName', instanceOfVolume(name), o, () =>
      this.fake.volHandle(this.fake.volume(this.hostName, pool.name, name)),
    );
  }
  storageVolCreateXML(pool: StoragePool, xml: string, o?: BackendCallOptions) {
    const name = tag(xml, 'name') ?? '';
    return this.#rpc('storageVolCreateXML', instanceOfVolume(name), o, () => {
      const p = this.fake.pool(this.hostName, pool.name);
      if (!name) throw libvirtError(ErrorNumber.VIR_ERR_XML_ERROR, 'XML error: missing volume name');
      if (p.volumes.has(name))
        throw libvirtError(ErrorNumber.VIR_ERR_STORAGE_VOL_EXIST, `storage volume '${name}' exists already`);
      const cap = /<capacity\b([^>]*)>(\d+)<\/capacity>/.exec(xml);
      const unit = (parseAttributes(cap?.[1] ?? '')?.get('unit') ?? 'bytes').toLowerCase();
      const capacity = Number(cap?.[2] ?? 0) * (UNIT[unit] ?? 1);
      const format = /<target>\s*<format type="([^"]+)"/.exec(xml)?.[1] ?? 'raw';
      const backingPath = /<backingStore>\s*<path>([^<]+)<\/path>/.exec(xml)?.[1];
      if (backingPath) {
        const exists = [...p.volumes.values()].some((v) => v.path === backingPath);
        if (!exists)
          throw libvirtError(
            ErrorNumber.VIR_ERR_OPERATION_FAILED,
            `backing store ${backingPath} does not exist`,
          );
      }
      const v: FakeVolume = {
        name,
        pool: p.name,
        key: `${p.path}/${name}`,
        path: `${p.path}/${name}`,
        capacity,
        format,
        ...(backingPath ? { backingPath } : {}),
      };
      p.volumes.set(name, v);
      return this.fake.volHandle(v);
    });
  }
  storageVolDelete(vol: StorageVol, o?: BackendCallOptions) {
    return this.#rpc('storageVolDelete', instanceOfVolume(vol.name), o, () => {
      this.fake.volume(this.hostName, vol.pool, vol.name);
      this.fake.pool(this.hostName, vol.pool).volumes.delete(vol.name);
    });
  }
  storageVolGetPath(vol: StorageVol, o?: BackendCallOptions) {
    return this.#rpc(
      'storageVolGetPath',
      instanceOfVolume(vol.name),
      o,
      () => this.fake.volume(this.hostName, vol.pool, vol.name).path,
    );
  }
  storageVolGetInfo(vol: StorageVol, o?: BackendCallOptions) {
    return this.#rpc('storageVolGetInfo', instanceOfVolume(vol.name), o, () => {
      const v = this.fake.volume(this.hostName, vol.pool, vol.name);
      return { type: 0, capacity: BigInt(v.capacity), allocation: BigInt(v.data?.length ?? 0) };
    });
  }
  storageVolGetXMLDesc(vol: StorageVol, o?: BackendCallOptions) {
    return this.#rpc('storageVolGetXMLDesc', instanceOfVolume(vol.name), o, () => {
      const v = this.fake.volume(this.hostName, vol.pool, vol.name);
      const backing = v.backingPath
        ? `<backingStore><path>${v.backingPath}</path><format type="qcow2"/></backingStore>`
        : '';
      return `<volume type="file"><name>${v.name}</name><key>${v.key}</key><capacity unit="bytes">${v.capacity}</capacity><target><path>${v.path}</path><format type="${v.format}"/></target>${backing}</volume>`;
    });
  }
  storageVolUpload(vol: StorageVol, source: Readable, length: number, o?: BackendCallOptions) {
    return this.#rpc('storageVolUpload', instanceOfVolume(vol.name), o, async () => {
      const v = this.fake.volume(this.hostName, vol.pool, vol.name);
      const chunks: Buffer[] = [];
      let n = 0;
      for await (const chunk of source) {
        if (o?.signal?.aborted) throw abortReason(o.signal);
        const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
        chunks.push(b);
        n += b.length;
        if (n > length) throw libvirtError(ErrorNumber.VIR_ERR_INVALID_ARG, 'upload longer than announced');
      }
      v.data = Buffer.concat(chunks);
    });
  }
  storageVolDownload(vol: StorageVol, maxBytes: number, o?: BackendCallOptions) {
    return this.#rpc('storageVolDownload', instanceOfVolume(vol.name), o, () =>
      (this.fake.volume(this.hostName, vol.pool, vol.name).data ?? Buffer.alloc(0)).subarray(0, maxBytes),
    );
  }
}
