import type { Readable } from 'node:stream';
import type { CallOptions, Domain, LibvirtClient, StoragePool, StorageVol } from 'libvirt-rpc-ts';
import { DomainMetadataType } from 'libvirt-rpc-ts/codes';
import type { BackendCallOptions, KvmBackend } from './backend.js';
import { loadRpc } from './rpc-module.js';

/** Per-call budgets: an RPC that outlives its budget fails Transient and ends its connection. */
export interface Budgets {
  rpcMs: number;
  startMs: number;
  uploadMs: number;
  dialMs: number;
}

export const DEFAULT_BUDGETS: Budgets = {
  rpcMs: 30_000,
  startMs: 90_000,
  uploadMs: 20 * 60_000,
  dialMs: 10_000,
};

const opts = (o: BackendCallOptions | undefined, fallbackMs: number): CallOptions => ({
  ...(o?.signal ? { signal: o.signal } : {}),
  timeoutMs: o?.timeoutMs ?? fallbackMs,
});

/** The production adapter: the seam over one libvirt-rpc client. */
export class LibvirtBackend implements KvmBackend {
  constructor(
    private readonly client: LibvirtClient,
    private readonly budgets: Budgets = DEFAULT_BUDGETS,
  ) {}

  get isOpen(): boolean {
    return this.client.isOpen;
  }

  async close(): Promise<void> {
    if (!this.client.isOpen) return;
    try {
      await this.client.close({ timeoutMs: 2_000 });
    } catch {
      this.client.destroy();
    }
  }

  private o(o?: BackendCallOptions): CallOptions {
    return opts(o, this.budgets.rpcMs);
  }

  connectGetLibVersion(o?: BackendCallOptions) {
    return this.client.connectGetLibVersion(this.o(o));
  }
  connectGetHostname(o?: BackendCallOptions) {
    return this.client.connectGetHostname(this.o(o));
  }
  connectListAllDomains(o?: BackendCallOptions) {
    return this.client.connectListAllDomains(0, this.o(o));
  }
  domainLookupByName(name: string, o?: BackendCallOptions) {
    return this.client.domainLookupByName(name, this.o(o));
  }
  domainDefineXML(xml: string, o?: BackendCallOptions) {
    return this.client.domainDefineXMLFlags(xml, 0, this.o(o));
  }
  async domainCreate(dom: Domain, o?: BackendCallOptions) {
    await this.client.domainCreateWithFlags(dom, 0, opts(o, this.budgets.startMs));
  }
  domainResume(dom: Domain, o?: BackendCallOptions) {
    return this.client.domainResume(dom, this.o(o));
  }
  domainDestroy(dom: Domain, o?: BackendCallOptions) {
    return this.client.domainDestroyFlags(dom, 0, this.o(o));
  }
  domainUndefineFlags(dom: Domain, flags: number, o?: BackendCallOptions) {
    return this.client.domainUndefineFlags(dom, flags, this.o(o));
  }
  domainGetState(dom: Domain, o?: BackendCallOptions) {
    return this.client.domainGetState(dom, 0, this.o(o));
  }
  domainGetMetadata(dom: Domain, uri: string, o?: BackendCallOptions) {
    return this.client.domainGetMetadata(dom, DomainMetadataType.ELEMENT, uri, 0, this.o(o));
  }
  domainInterfaceAddresses(dom: Domain, source: number, o?: BackendCallOptions) {
    return this.client.domainInterfaceAddresses(dom, source, 0, this.o(o));
  }
  storagePoolLookupByName(name: string, o?: BackendCallOptions) {
    return this.client.storagePoolLookupByName(name, this.o(o));
  }
  storagePoolGetInfo(pool: StoragePool, o?: BackendCallOptions) {
    return this.client.storagePoolGetInfo(pool, this.o(o));
  }
  storagePoolRefresh(pool: StoragePool, o?: BackendCallOptions) {
    return this.client.storagePoolRefresh(pool, 0, this.o(o));
  }
  storagePoolListAllVolumes(pool: StoragePool, o?: BackendCallOptions) {
    return this.client.storagePoolListAllVolumes(pool, 0, this.o(o));
  }
  storageVolLookupByName(pool: StoragePool, name: string, o?: BackendCallOptions) {
    return this.client.storageVolLookupByName(pool, name, this.o(o));
  }
  storageVolCreateXML(pool: StoragePool, xml: string, o?: BackendCallOptions) {
    return this.client.storageVolCreateXML(pool, xml, 0, this.o(o));
  }
  storageVolDelete(vol: StorageVol, o?: BackendCallOptions) {
    return this.client.storageVolDelete(vol, 0, this.o(o));
  }
  storageVolGetPath(vol: StorageVol, o?: BackendCallOptions) {
    return this.client.storageVolGetPath(vol, this.o(o));
  }
  storageVolGetInfo(vol: StorageVol, o?: BackendCallOptions) {
    return this.client.storageVolGetInfo(vol, this.o(o));
  }
  async storageVolGetXMLDesc(vol: StorageVol, o?: BackendCallOptions) {
    // The client has no typed method for it; the procedure table and writer come with the module.
    const { Procedure, writeVol } = await loadRpc();
    return this.client.call(
      Procedure.STORAGE_VOL_GET_XML_DESC,
      (w) => {
        writeVol(w, vol);
        w.uint(0, 'flags');
      },
      (r) => r.string(),
      this.o(o),
    );
  }
  storageVolUpload(vol: StorageVol, source: Readable, length: number, o?: BackendCallOptions) {
    return this.client.storageVolUpload(vol, source, { length, ...opts(o, this.budgets.uploadMs) });
  }
  async storageVolDownload(vol: StorageVol, maxBytes: number, o?: BackendCallOptions) {
    const stream = await this.client.storageVolDownload(vol, { length: maxBytes, ...this.o(o) });
    const chunks: Buffer[] = [];
    let n = 0;
    for await (const chunk of stream) {
      const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      chunks.push(b);
      n += b.length;
      if (n >= maxBytes) break;
    }
    return Buffer.concat(chunks).subarray(0, maxBytes);
  }
}
