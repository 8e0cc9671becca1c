import type { Readable } from 'node:stream';
import type { Logger } from '@egress-proxies/contract';
import type {
  Domain,
  DomainInterface,
  DomainStateResult,
  StoragePool,
  StoragePoolInfo,
  StorageVol,
  StorageVolInfo,
} from 'libvirt-rpc-ts';
import type { KvmHost } from './config.js';

export type {
  Domain,
  DomainInterface,
  DomainStateResult,
  StoragePool,
  StoragePoolInfo,
  StorageVol,
  StorageVolInfo,
};

/** Options of every seam call. */
export interface BackendCallOptions {
  signal?: AbortSignal;
  /** The call's own budget; a call that runs out of it fails Transient. */
  timeoutMs?: number;
  /** Where the observe decorator writes its lines; the caller's logger. */
  logger?: Logger;
  /**
   * Told about every call whose caller may stop waiting before it ends (pooled connections), so
   * an operation can hold its lock until the backend has really finished its last step.
   */
  track?: (work: Promise<unknown>) => void;
}

/**
 * The seam: the libvirt calls the providers make on one host connection. The production adapter
 * runs them over libvirt-rpc; the fake in `./test` keeps state in memory. Names follow the
 * libvirt RPCs, so span names read `kvm2.DomainLookupByName`.
 */
export interface KvmBackend {
  connectGetLibVersion(o?: BackendCallOptions): Promise<number>;
  connectGetHostname(o?: BackendCallOptions): Promise<string>;
  connectListAllDomains(o?: BackendCallOptions): Promise<Domain[]>;
  domainLookupByName(name: string, o?: BackendCallOptions): Promise<Domain>;
  domainDefineXML(xml: string, o?: BackendCallOptions): Promise<Domain>;
  domainCreate(dom: Domain, o?: BackendCallOptions): Promise<void>;
  domainResume(dom: Domain, o?: BackendCallOptions): Promise<void>;
  domainDestroy(dom: Domain, o?: BackendCallOptions): Promise<void>;
  domainUndefineFlags(dom: Domain, flags: number, o?: BackendCallOptions): Promise<void>;
  domainGetState(dom: Domain, o?: BackendCallOptions): Promise<DomainStateResult>;
  domainGetMetadata(dom: Domain, uri: string, o?: BackendCallOptions): Promise<string>;
  domainInterfaceAddresses(dom: Domain, source: number, o?: BackendCallOptions): Promise<DomainInterface[]>;
  storagePoolLookupByName(name: string, o?: BackendCallOptions): Promise<StoragePool>;
  storagePoolGetInfo(pool: StoragePool, o?: BackendCallOptions): Promise<StoragePoolInfo>;
  storagePoolRefresh(pool: StoragePool, o?: BackendCallOptions): Promise<void>;
  storagePoolListAllVolumes(pool: StoragePool, o?: BackendCallOptions): Promise<StorageVol[]>;
  storageVolLookupByName(pool: StoragePool, name: string, o?: BackendCallOptions): Promise<StorageVol>;
  storageVolCreateXML(pool: StoragePool, xml: string, o?: BackendCallOptions): Promise<StorageVol>;
  storageVolDelete(vol: StorageVol, o?: BackendCallOptions): Promise<void>;
  storageVolGetPath(vol: StorageVol, o?: BackendCallOptions): Promise<string>;
  storageVolGetInfo(vol: StorageVol, o?: BackendCallOptions): Promise<StorageVolInfo>;
  storageVolGetXMLDesc(vol: StorageVol, o?: BackendCallOptions): Promise<string>;
  /** Streams `length` bytes of `source` into the volume; the body is never logged. */
  storageVolUpload(vol: StorageVol, source: Readable, length: number, o?: BackendCallOptions): Promise<void>;
  /** Reads a small volume whole (the image marker). */
  storageVolDownload(vol: StorageVol, maxBytes: number, o?: BackendCallOptions): Promise<Buffer>;
  /** Whether the connection can still carry calls. */
  readonly isOpen: boolean;
  /** Ends the connection; safe to call twice. */
  close(): Promise<void>;
}

/** Every seam method, for the decorator and its test. */
export const BACKEND_METHODS = [
  'connectGetLibVersion',
  'connectGetHostname',
  'connectListAllDomains',
  'domainLookupByName',
  'domainDefineXML',
  'domainCreate',
  'domainResume',
  'domainDestroy',
  'domainUndefineFlags',
  'domainGetState',
  'domainGetMetadata',
  'domainInterfaceAddresses',
  'storagePoolLookupByName',
  'storagePoolGetInfo',
  'storagePoolRefresh',
  'storagePoolListAllVolumes',
  'storageVolLookupByName',
  'storageVolCreateXML',
  'storageVolDelete',
  'storageVolGetPath',
  'storageVolGetInfo',
  'storageVolGetXMLDesc',
  'storageVolUpload',
  'storageVolDownload',
] as const satisfies readonly (keyof KvmBackend)[];

export type BackendMethod = (typeof BACKEND_METHODS)[number];

/** Opens one connection to a host. The production dialer speaks SSH; tests inject a fake. */
export interface Dialer {
  dial(host: KvmHost, o?: BackendCallOptions): Promise<KvmBackend>;
}
