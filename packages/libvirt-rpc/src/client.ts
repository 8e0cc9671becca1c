import type { Readable } from 'node:stream';
import type { CallOptions, RpcConnection } from './connection.js';
import {
  REMOTE_DOMAIN_INTERFACE_MAX,
  REMOTE_DOMAIN_IP_ADDR_MAX,
  REMOTE_DOMAIN_LIST_MAX,
  REMOTE_PROGRAM,
  REMOTE_STORAGE_POOL_LIST_MAX,
  REMOTE_STORAGE_VOL_LIST_MAX,
  UUID_BUFLEN,
} from './constants.js';
import { ConnectionClosedError } from './errors.js';
import { Procedure } from './procedures.js';
import {
  type Domain,
  readDomain,
  readPool,
  readVol,
  type StoragePool,
  type StorageVol,
  writeDomain,
  writePool,
  writeVol,
} from './remote-types.js';
import {
  type DownloadOptions,
  runDownload,
  runUpload,
  type UploadOptions,
  type UploadSource,
} from './streams.js';
import { uuidToBytes } from './uuid.js';
import type { XdrReader, XdrWriter } from './xdr.js';

export interface DomainStateResult {
  /** virDomainState (see `DomainState`). */
  state: number;
  /** State-specific reason (see `DomainShutoffReason`, `DomainRunningReason`). */
  reason: number;
}

export interface DomainInfo {
  state: number;
  /** KiB */
  maxMem: bigint;
  /** KiB */
  memory: bigint;
  nrVirtCpu: number;
  /** Nanoseconds */
  cpuTime: bigint;
}

export interface DomainIPAddress {
  /** 0 IPv4, 1 IPv6 (see `IPAddrType`). */
  type: number;
  addr: string;
  prefix: number;
}

export interface DomainInterface {
  name: string;
  hwaddr: string | null;
  addrs: DomainIPAddress[];
}

export interface StoragePoolInfo {
  /** virStoragePoolState (see `StoragePoolState`). */
  state: number;
  capacity: bigint;
  allocation: bigint;
  available: bigint;
}

export interface StorageVolInfo {
  /** virStorageVolType (see `StorageVolType`). */
  type: number;
  capacity: bigint;
  allocation: bigint;
}

export interface StreamRange {
  /** Byte offset in the volume (default 0). */
  offset?: bigint | number;
  /** Bytes to transfer; 0 (default) means up to the end of the volume. */
  length?: bigint | number;
  /** virStorageVolUploadFlags / DownloadFlags (default 0; SPARSE_STREAM is not supported). */
  flags?: number;
}

const none = (): undefined => undefined;
const str = (r: XdrReader): string => r.string();

/**
 * A handshaken libvirt connection with typed methods. Every method takes a trailing
 * `{ signal?, timeoutMs? }`; abandoning a call that was sent marks the connection dead.
 */
export class LibvirtClient {
  constructor(readonly connection: RpcConnection) {}

  /** Whether the connection can still carry calls. */
  get isOpen(): boolean {
    return this.connection.isOpen;
  }

  /** Why the connection ended (null while open). */
  get closeReason(): Error | null {
    return this.connection.closeReason;
  }

  /** Resolves with the reason when the connection ends. */
  whenClosed(): Promise<Error> {
    return this.connection.whenClosed();
  }

  /** Raw call on the remote program, for procedures without a typed method. */
  call<T>(
    proc: number,
    encode: ((w: XdrWriter) => void) | null,
    decode: (r: XdrReader) => T,
    options?: CallOptions,
  ): Promise<T> {
    return this.connection.call(REMOTE_PROGRAM, proc, encode, decode, options);
  }

  /** CONNECT_CLOSE, then ends the stream (the server hangs up after replying). */
  async close(options: CallOptions = {}): Promise<void> {
    if (!this.connection.isOpen) return;
    this.connection.markClosing();
    try {
      await this.call(Procedure.CONNECT_CLOSE, null, none, options);
    } catch (err) {
      if (!ConnectionClosedError.isInstance(err)) {
        this.connection.destroy(new ConnectionClosedError('the connection was closed by the client'));
        throw err;
      }
    }
    await this.connection.end();
  }

  /** Cuts the connection at once; in-flight calls fail with ConnectionClosedError. */
  destroy(reason?: Error | string): void {
    const err =
      reason === undefined
        ? new ConnectionClosedError('the connection was destroyed by the client')
        : typeof reason === 'string'
          ? new ConnectionClosedError(reason)
          : reason;
    this.connection.destroy(err);
  }

  // --- connection ---

  connectGetLibVersion(options?: CallOptions): Promise<number> {
    return this.call(Procedure.CONNECT_GET_LIB_VERSION, null, (r) => Number(r.uhyper()), options);
  }

  /** Hypervisor version, e.g. 7002022 for QEMU 7.2.22. */
  connectGetVersion(options?: CallOptions): Promise<number> {
    return this.call(Procedure.CONNECT_GET_VERSION, null, (r) => Number(r.uhyper()), options);
  }

  connectGetHostname(options?: CallOptions): Promise<string> {
    return this.call(Procedure.CONNECT_GET_HOSTNAME, null, str, options);
  }

  connectGetUri(options?: CallOptions): Promise<string> {
    return this.call(Procedure.CONNECT_GET_URI, null, str, options);
  }

  connectGetType(options?: CallOptions): Promise<string> {
    return this.call(Procedure.CONNECT_GET_TYPE, null, str, options);
  }

  /** `feature` is a virDrvFeature (see `DrvFeature`). */
  connectSupportsFeature(feature: number, options?: CallOptions): Promise<boolean> {
    return this.call(
      Procedure.CONNECT_SUPPORTS_FEATURE,
      (w) => w.int(feature, 'feature'),
      (r) => r.int() !== 0,
      options,
    );
  }

  /** `flags`: ConnectListAllDomainsFlags (0 = all). */
  connectListAllDomains(flags = 0, options?: CallOptions): Promise<Domain[]> {
    return this.call(
      Procedure.CONNECT_LIST_ALL_DOMAINS,
      (w) => w.int(1).uint(flags, 'flags'),
      (r) => {
        const list = r.array(REMOTE_DOMAIN_LIST_MAX, readDomain);
        r.uint();
        return list;
      },
      options,
    );
  }

  /** `flags`: ConnectListAllStoragePoolsFlags (0 = all). */
  connectListAllStoragePools(flags = 0, options?: CallOptions): Promise<StoragePool[]> {
    return this.call(
      Procedure.CONNECT_LIST_ALL_STORAGE_POOLS,
      (w) => w.int(1).uint(flags, 'flags'),
      (r) => {
        const list = r.array(REMOTE_STORAGE_POOL_LIST_MAX, readPool);
        r.uint();
        return list;
      },
      options,
    );
  }

  // --- domains ---

  domainLookupByName(name: string, options?: CallOptions): Promise<Domain> {
    return this.call(
      Procedure.DOMAIN_LOOKUP_BY_NAME,
      (w) => w.string(name, undefined, 'name'),
      readDomain,
      options,
    );
  }

  /** `uuid`: text (with or without dashes) or 16 bytes. */
  domainLookupByUUID(uuid: string | Uint8Array, options?: CallOptions): Promise<Domain> {
    const bytes = uuidToBytes(uuid);
    return this.call(
      Procedure.DOMAIN_LOOKUP_BY_UUID,
      (w) => w.fixedOpaque(bytes, UUID_BUFLEN, 'uuid'),
      readDomain,
      options,
    );
  }

  /** `flags`: DomainDefineFlags. */
  domainDefineXMLFlags(xml: string, flags = 0, options?: CallOptions): Promise<Domain> {
    return this.call(
      Procedure.DOMAIN_DEFINE_XML_FLAGS,
      (w) => w.string(xml, undefined, 'xml').uint(flags, 'flags'),
      readDomain,
      options,
    );
  }

  /** Starts a defined domain; the returned handle carries the new id. `flags`: DomainCreateFlags. */
  domainCreateWithFlags(dom: Domain, flags = 0, options?: CallOptions): Promise<Domain> {
    return this.call(
      Procedure.DOMAIN_CREATE_WITH_FLAGS,
      (w) => {
        writeDomain(w, dom);
        w.uint(flags, 'flags');
      },
      readDomain,
      options,
    );
  }

  /** `flags`: DomainDestroyFlags. */
  domainDestroyFlags(dom: Domain, flags = 0, options?: CallOptions): Promise<void> {
    return this.call(Procedure.DOMAIN_DESTROY_FLAGS, domFlags(dom, flags), none, options);
  }

  /** `flags`: DomainUndefineFlags. */
  domainUndefineFlags(dom: Domain, flags = 0, options?: CallOptions): Promise<void> {
    return this.call(Procedure.DOMAIN_UNDEFINE_FLAGS, domFlags(dom, flags), none, options);
  }

  domainGetState(dom: Domain, flags = 0, options?: CallOptions): Promise<DomainStateResult> {
    return this.call(
      Procedure.DOMAIN_GET_STATE,
      domFlags(dom, flags),
      (r) => {
        const state = r.int();
        return { state, reason: r.int() };
      },
      options,
    );
  }

  domainGetInfo(dom: Domain, options?: CallOptions): Promise<DomainInfo> {
    return this.call(
      Procedure.DOMAIN_GET_INFO,
      (w) => writeDomain(w, dom),
      (r) => {
        const state = r.int();
        const maxMem = r.uhyper();
        const memory = r.uhyper();
        const nrVirtCpu = r.uint();
        return { state, maxMem, memory, nrVirtCpu, cpuTime: r.uhyper() };
      },
      options,
    );
  }

  /** `flags`: DomainXMLFlags. */
  domainGetXMLDesc(dom: Domain, flags = 0, options?: CallOptions): Promise<string> {
    return this.call(Procedure.DOMAIN_GET_XML_DESC, domFlags(dom, flags), str, options);
  }

  /**
   * `type`: DomainMetadataType; for ELEMENT `uri` is the namespace. `flags`: DomainModificationImpact.
   * Fails with VIR_ERR_NO_DOMAIN_METADATA when nothing is set.
   */
  domainGetMetadata(
    dom: Domain,
    type: number,
    uri: string | null,
    flags = 0,
    options?: CallOptions,
  ): Promise<string> {
    return this.call(
      Procedure.DOMAIN_GET_METADATA,
      (w) => {
        writeDomain(w, dom);
        w.int(type, 'type').optionalString(uri, undefined, 'uri').uint(flags, 'flags');
      },
      str,
      options,
    );
  }

  /**
   * `type`: DomainMetadataType. For ELEMENT, `metadata` is one XML element, `key` its namespace
   * prefix and `uri` the namespace; `metadata = null` removes it. For TITLE/DESCRIPTION pass
   * `key` and `uri` as null.
   */
  domainSetMetadata(
    dom: Domain,
    type: number,
    metadata: string | null,
    key: string | null,
    uri: string | null,
    flags = 0,
    options?: CallOptions,
  ): Promise<void> {
    return this.call(
      Procedure.DOMAIN_SET_METADATA,
      (w) => {
        writeDomain(w, dom);
        w.int(type, 'type')
          .optionalString(metadata, undefined, 'metadata')
          .optionalString(key, undefined, 'key')
          .optionalString(uri, undefined, 'uri')
          .uint(flags, 'flags');
      },
      none,
      options,
    );
  }

  /** `source`: DomainInterfaceAddressesSource (LEASE, AGENT, ARP). */
  domainInterfaceAddresses(
    dom: Domain,
    source: number,
    flags = 0,
    options?: CallOptions,
  ): Promise<DomainInterface[]> {
    return this.call(
      Procedure.DOMAIN_INTERFACE_ADDRESSES,
      (w) => {
        writeDomain(w, dom);
        w.uint(source, 'source').uint(flags, 'flags');
      },
      (r) =>
        r.array(REMOTE_DOMAIN_INTERFACE_MAX, (ri) => {
          const name = ri.string();
          const hwaddr = ri.optionalString();
          const addrs = ri.array(REMOTE_DOMAIN_IP_ADDR_MAX, (ra) => {
            const type = ra.int();
            const addr = ra.string();
            return { type, addr, prefix: ra.uint() };
          });
          return { name, hwaddr, addrs };
        }),
      options,
    );
  }

  domainResume(dom: Domain, options?: CallOptions): Promise<void> {
    return this.call(Procedure.DOMAIN_RESUME, (w) => writeDomain(w, dom), none, options);
  }

  domainSuspend(dom: Domain, options?: CallOptions): Promise<void> {
    return this.call(Procedure.DOMAIN_SUSPEND, (w) => writeDomain(w, dom), none, options);
  }

  /** `flags`: DomainShutdownFlags (0 lets the hypervisor choose). */
  domainShutdownFlags(dom: Domain, flags = 0, options?: CallOptions): Promise<void> {
    return this.call(Procedure.DOMAIN_SHUTDOWN_FLAGS, domFlags(dom, flags), none, options);
  }

  // --- storage ---

  storagePoolLookupByName(name: string, options?: CallOptions): Promise<StoragePool> {
    return this.call(
      Procedure.STORAGE_POOL_LOOKUP_BY_NAME,
      (w) => w.string(name, undefined, 'name'),
      readPool,
      options,
    );
  }

  storagePoolGetInfo(pool: StoragePool, options?: CallOptions): Promise<StoragePoolInfo> {
    return this.call(
      Procedure.STORAGE_POOL_GET_INFO,
      (w) => writePool(w, pool),
      (r) => {
        const state = r.int();
        const capacity = r.uhyper();
        const allocation = r.uhyper();
        return { state, capacity, allocation, available: r.uhyper() };
      },
      options,
    );
  }

  storagePoolRefresh(pool: StoragePool, flags = 0, options?: CallOptions): Promise<void> {
    return this.call(Procedure.STORAGE_POOL_REFRESH, poolFlags(pool, flags), none, options);
  }

  storagePoolListAllVolumes(pool: StoragePool, flags = 0, options?: CallOptions): Promise<StorageVol[]> {
    return this.call(
      Procedure.STORAGE_POOL_LIST_ALL_VOLUMES,
      (w) => {
        writePool(w, pool);
        w.int(1).uint(flags, 'flags');
      },
      (r) => {
        const list = r.array(REMOTE_STORAGE_VOL_LIST_MAX, readVol);
        r.uint();
        return list;
      },
      options,
    );
  }

  storageVolLookupByName(pool: StoragePool, name: string, options?: CallOptions): Promise<StorageVol> {
    return this.call(
      Procedure.STORAGE_VOL_LOOKUP_BY_NAME,
      (w) => {
        writePool(w, pool);
        w.string(name, undefined, 'name');
      },
      readVol,
      options,
    );
  }

  /** `flags`: StorageVolCreateFlags. */
  storageVolCreateXML(pool: StoragePool, xml: string, flags = 0, options?: CallOptions): Promise<StorageVol> {
    return this.call(
      Procedure.STORAGE_VOL_CREATE_XML,
      (w) => {
        writePool(w, pool);
        w.string(xml, undefined, 'xml').uint(flags, 'flags');
      },
      readVol,
      options,
    );
  }

  /** `flags`: StorageVolDeleteFlags. */
  storageVolDelete(vol: StorageVol, flags = 0, options?: CallOptions): Promise<void> {
    return this.call(
      Procedure.STORAGE_VOL_DELETE,
      (w) => {
        writeVol(w, vol);
        w.uint(flags, 'flags');
      },
      none,
      options,
    );
  }

  storageVolGetPath(vol: StorageVol, options?: CallOptions): Promise<string> {
    return this.call(Procedure.STORAGE_VOL_GET_PATH, (w) => writeVol(w, vol), str, options);
  }

  storageVolGetInfo(vol: StorageVol, options?: CallOptions): Promise<StorageVolInfo> {
    return this.call(
      Procedure.STORAGE_VOL_GET_INFO,
      (w) => writeVol(w, vol),
      (r) => {
        const type = r.int();
        const capacity = r.uhyper();
        return { type, capacity, allocation: r.uhyper() };
      },
      options,
    );
  }

  /**
   * Streams `source` into the volume with back-pressure (nothing is buffered beyond one packet).
   * Resolves after the server confirms the finish. A failing source aborts the stream and keeps
   * the connection; an aborted signal or timeout marks the connection dead.
   */
  storageVolUpload(
    vol: StorageVol,
    source: UploadSource,
    options: StreamRange & UploadOptions = {},
  ): Promise<void> {
    return runUpload(this.connection, Procedure.STORAGE_VOL_UPLOAD, rangeArgs(vol, options), source, {
      ...options,
      ...this.hook(),
    });
  }

  /**
   * Resolves (after the call's reply) with a Readable of the volume's bytes. It ends after the
   * finish exchange; destroying it early aborts the stream and keeps the connection.
   */
  storageVolDownload(vol: StorageVol, options: StreamRange & DownloadOptions = {}): Promise<Readable> {
    return runDownload(this.connection, Procedure.STORAGE_VOL_DOWNLOAD, rangeArgs(vol, options), {
      ...options,
      ...this.hook(),
    });
  }

  private hook() {
    const onCall = this.connection.onCallHook;
    return onCall ? { onCall } : {};
  }
}

function domFlags(dom: Domain, flags: number) {
  return (w: XdrWriter) => {
    writeDomain(w, dom);
    w.uint(flags, 'flags');
  };
}

function poolFlags(pool: StoragePool, flags: number) {
  return (w: XdrWriter) => {
    writePool(w, pool);
    w.uint(flags, 'flags');
  };
}

function rangeArgs(vol: StorageVol, range: StreamRange) {
  return (w: XdrWriter) => {
    writeVol(w, vol);
    w.uhyper(range.offset ?? 0, 'offset')
      .uhyper(range.length ?? 0, 'length')
      .uint(range.flags ?? 0, 'flags');
  };
}
