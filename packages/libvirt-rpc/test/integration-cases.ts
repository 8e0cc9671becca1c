// Integration cases shared by every transport: each runs against the real libvirtd.
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Readable } from 'node:stream';
import type { LibvirtTestEnv } from '@egress-proxies/testenv-libvirt';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ConnectionClosedError,
  type Domain,
  DomainCreateFlags,
  DomainInterfaceAddressesSource,
  DomainMetadataType,
  DomainShutoffReason,
  DomainState,
  DomainUndefineFlags,
  DrvFeature,
  ErrorNumber,
  type LibvirtClient,
  LibvirtError,
  type StoragePool,
  StoragePoolState,
  type StorageVol,
} from '../src/index.js';

export interface CaseContext {
  env(): LibvirtTestEnv;
  /** Dials a fresh, handshaken client over the transport under test. */
  connect(): Promise<LibvirtClient>;
}

const MiB = 1024 * 1024;

export function uniqueName(): string {
  return `ep-rpc-test-${randomBytes(5).toString('hex')}`;
}

async function expectLibvirtError(p: Promise<unknown>, code: number): Promise<LibvirtError> {
  const err = await p.then(
    () => {
      throw new Error(`expected libvirt error ${code}, but the call succeeded`);
    },
    (e: unknown) => e,
  );
  if (!LibvirtError.isInstance(err)) throw err;
  expect(err.code, `${err.codeName}: ${err.message}`).toBe(code);
  return err;
}

function domainXml(name: string, diskPath: string): string {
  return `<domain type='qemu'>
  <name>${name}</name>
  <memory unit='MiB'>32</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type></os>
  <devices>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2'/>
      <source file='${diskPath}'/>
      <target dev='vda' bus='virtio'/>
    </disk>
  </devices>
</domain>`;
}

const volXml = (name: string, bytes: number, format: 'raw' | 'qcow2') =>
  `<volume><name>${name}</name><capacity unit='bytes'>${bytes}</capacity><target><format type='${format}'/></target></volume>`;

/** A deterministic-length random byte source that hashes what it yields. */
function randomSource(total: number, chunk = 1 * MiB): { source: Readable; digest: () => string } {
  const hash = createHash('sha256');
  let sent = 0;
  const source = new Readable({
    highWaterMark: 2 * MiB,
    read() {
      if (sent >= total) return void this.push(null);
      const n = Math.min(chunk, total - sent);
      const buf = randomBytes(n);
      hash.update(buf);
      sent += n;
      this.push(buf);
    },
  });
  return { source, digest: () => hash.digest('hex') };
}

async function sha256Of(readable: Readable): Promise<{ hex: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of readable) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { hex: hash.digest('hex'), bytes };
}

/** Registers the transport-independent integration cases in the current describe block. */
export function defineIntegrationCases(ctx: CaseContext): void {
  let client: LibvirtClient;
  let pool: StoragePool;
  const domains = new Set<string>();
  const volumes = new Set<string>();

  beforeAll(async () => {
    client = await ctx.connect();
    pool = await client.storagePoolLookupByName(ctx.env().pool.name);
  });

  afterAll(async () => {
    // Clean up with a fresh connection: a test may have killed the shared one on purpose.
    const c = await ctx.connect();
    try {
      for (const name of domains) {
        const dom = await c.domainLookupByName(name).catch(() => null);
        if (!dom) continue;
        await c.domainDestroyFlags(dom, 0).catch(() => undefined);
        await c.domainUndefineFlags(dom, DomainUndefineFlags.NVRAM).catch(() => undefined);
      }
      const p = await c.storagePoolLookupByName(ctx.env().pool.name);
      for (const name of volumes) {
        const vol = await c.storageVolLookupByName(p, name).catch(() => null);
        if (vol) await c.storageVolDelete(vol, 0);
      }
    } finally {
      await c.close();
      if (client.isOpen) await client.close();
    }
  });

  async function createVol(c: LibvirtClient, bytes: number, format: 'raw' | 'qcow2'): Promise<StorageVol> {
    const name = `${uniqueName()}.${format === 'raw' ? 'img' : 'qcow2'}`;
    volumes.add(name);
    return c.storageVolCreateXML(pool, volXml(name, bytes, format), 0);
  }

  it('reports library version, hostname, URI and keepalive support', async () => {
    expect(await client.connectGetLibVersion()).toBeGreaterThanOrEqual(9_000_000);
    expect(await client.connectGetHostname()).toBe(hostname());
    expect(await client.connectGetUri()).toBe('qemu:///system');
    expect(await client.connectGetType()).toBe('QEMU');
    expect(await client.connectGetVersion()).toBeGreaterThanOrEqual(7_000_000);
    expect(await client.connectSupportsFeature(DrvFeature.PROGRAM_KEEPALIVE)).toBe(true);
  });

  it('lists, looks up, inspects and refreshes the storage pool', async () => {
    const pools = await client.connectListAllStoragePools(0);
    expect(pools.map((p) => p.name)).toContain(ctx.env().pool.name);
    expect(pools.find((p) => p.name === pool.name)?.uuid).toBe(pool.uuid);
    const info = await client.storagePoolGetInfo(pool);
    expect(info.state).toBe(StoragePoolState.RUNNING);
    expect(info.capacity).toBeGreaterThan(0n);
    expect(info.available).toBeLessThanOrEqual(info.capacity);
    await client.storagePoolRefresh(pool, 0);
  });

  it('creates, finds, describes and deletes a volume', async () => {
    const vol = await createVol(client, MiB, 'raw');
    expect(vol.pool).toBe(pool.name);
    const path = await client.storageVolGetPath(vol);
    expect(path).toBe(`${ctx.env().pool.path}/${vol.name}`);
    expect(vol.key).toBe(path);
    expect(await client.storageVolLookupByName(pool, vol.name)).toEqual(vol);
    const info = await client.storageVolGetInfo(vol);
    expect(info).toEqual({ type: 0, capacity: BigInt(MiB), allocation: BigInt(MiB) });
    await client.storagePoolRefresh(pool, 0);
    expect((await client.storagePoolListAllVolumes(pool, 0)).map((v) => v.name)).toContain(vol.name);
    await expectLibvirtError(
      client.storageVolCreateXML(pool, volXml(vol.name, MiB, 'raw'), 0),
      ErrorNumber.VIR_ERR_STORAGE_VOL_EXIST,
    );
    await client.storageVolDelete(vol, 0);
    volumes.delete(vol.name);
    await expectLibvirtError(
      client.storageVolLookupByName(pool, vol.name),
      ErrorNumber.VIR_ERR_NO_STORAGE_VOL,
    );
  });

  it('reports missing domains, volumes and pools with their error codes', async () => {
    const missing = uniqueName();
    const e1 = await expectLibvirtError(client.domainLookupByName(missing), ErrorNumber.VIR_ERR_NO_DOMAIN);
    expect(e1.codeName).toBe('VIR_ERR_NO_DOMAIN');
    expect(e1.str2).toContain(missing);
    expect(e1.level).toBe(2);
    await expectLibvirtError(client.domainLookupByUUID(randomBytes(16)), ErrorNumber.VIR_ERR_NO_DOMAIN);
    const ev = await expectLibvirtError(
      client.storageVolLookupByName(pool, missing),
      ErrorNumber.VIR_ERR_NO_STORAGE_VOL,
    );
    expect(ev.codeName).toBe('VIR_ERR_NO_STORAGE_VOL');
    const ep = await expectLibvirtError(
      client.storagePoolLookupByName(missing),
      ErrorNumber.VIR_ERR_NO_STORAGE_POOL,
    );
    expect(ep.codeName).toBe('VIR_ERR_NO_STORAGE_POOL');
    await expectLibvirtError(client.domainDefineXMLFlags('<domain', 0), ErrorNumber.VIR_ERR_XML_DETAIL);
    expect(client.isOpen).toBe(true);
  });

  it('defines, starts, inspects, pauses, resumes, destroys and undefines a domain', async () => {
    const disk = await createVol(client, 16 * MiB, 'qcow2');
    const name = uniqueName();
    domains.add(name);
    const defined = await client.domainDefineXMLFlags(
      domainXml(name, await client.storageVolGetPath(disk)),
      0,
    );
    expect(defined).toMatchObject({ name, id: -1 });
    expect(await client.domainLookupByName(name)).toEqual(defined);
    expect(await client.domainLookupByUUID(defined.uuid)).toEqual(defined);
    expect((await client.connectListAllDomains(0)).map((d) => d.name)).toContain(name);
    expect(await client.domainGetState(defined, 0)).toEqual({ state: DomainState.SHUTOFF, reason: 0 });
    const info = await client.domainGetInfo(defined);
    expect(info).toMatchObject({ state: DomainState.SHUTOFF, maxMem: 32768n, nrVirtCpu: 1 });

    // Metadata under a custom namespace.
    const ns = 'https://example.invalid/egress-proxies/test';
    await expectLibvirtError(
      client.domainGetMetadata(defined, DomainMetadataType.ELEMENT, ns, 0),
      ErrorNumber.VIR_ERR_NO_DOMAIN_METADATA,
    );
    await client.domainSetMetadata(
      defined,
      DomainMetadataType.ELEMENT,
      '<info owner="me"><x>1</x></info>',
      'ep',
      ns,
      0,
    );
    const meta = await client.domainGetMetadata(defined, DomainMetadataType.ELEMENT, ns, 0);
    expect(meta.replace(/\s+/g, '')).toBe('<infoowner="me"><x>1</x></info>');
    await client.domainSetMetadata(defined, DomainMetadataType.TITLE, 'a title', null, null, 0);
    expect(await client.domainGetMetadata(defined, DomainMetadataType.TITLE, null, 0)).toBe('a title');
    const xml = await client.domainGetXMLDesc(defined, 0);
    expect(xml).toContain(`<ep:info xmlns:ep="${ns}"`);
    expect(xml).toContain(`<name>${name}</name>`);

    await expectLibvirtError(
      client.domainInterfaceAddresses(defined, DomainInterfaceAddressesSource.LEASE, 0),
      ErrorNumber.VIR_ERR_OPERATION_INVALID,
    );

    const started = await client.domainCreateWithFlags(defined, DomainCreateFlags.START_PAUSED);
    expect(started.id).toBeGreaterThan(0);
    expect(started.uuid).toBe(defined.uuid);
    expect((await client.domainGetState(defined, 0)).state).toBe(DomainState.PAUSED);
    await client.domainResume(started);
    expect(await client.domainGetState(started, 0)).toEqual({ state: DomainState.RUNNING, reason: 5 });
    expect((await client.domainGetInfo(started)).state).toBe(DomainState.RUNNING);
    await client.domainSuspend(started);
    expect((await client.domainGetState(started, 0)).state).toBe(DomainState.PAUSED);
    await client.domainResume(started);
    expect(await client.domainInterfaceAddresses(started, DomainInterfaceAddressesSource.LEASE, 0)).toEqual(
      [],
    );
    await expectLibvirtError(
      client.domainInterfaceAddresses(started, DomainInterfaceAddressesSource.AGENT, 0),
      ErrorNumber.VIR_ERR_ARGUMENT_UNSUPPORTED,
    );
    // ARP reads the host's neighbour table; with no NIC the answer is empty, or an error where
    // the sandbox's netlink is broken. Either way the reply must decode.
    const arp = await client
      .domainInterfaceAddresses(started, DomainInterfaceAddressesSource.ARP, 0)
      .catch((e) => e);
    if (LibvirtError.isInstance(arp)) expect(arp.code).toBe(ErrorNumber.VIR_ERR_INTERNAL_ERROR);
    else expect(arp).toEqual([]);
    // An ACPI power-button request is accepted even though nothing in the guest acts on it.
    await client.domainShutdownFlags(started, 0);
    await client.domainDestroyFlags(started, 0);
    expect(await client.domainGetState(started, 0)).toEqual({
      state: DomainState.SHUTOFF,
      reason: DomainShutoffReason.DESTROYED,
    });
    await expectLibvirtError(client.domainDestroyFlags(started, 0), ErrorNumber.VIR_ERR_OPERATION_INVALID);
    await client.domainUndefineFlags(defined, DomainUndefineFlags.NVRAM);
    domains.delete(name);
    await expectLibvirtError(client.domainLookupByName(name), ErrorNumber.VIR_ERR_NO_DOMAIN);
    await expectLibvirtError(client.domainGetState(defined, 0), ErrorNumber.VIR_ERR_NO_DOMAIN);
    // The first define after a daemon start probes QEMU's capabilities, which can take a while.
  }, 180_000);

  it('uploads 64 MiB and downloads it back byte-identical', async () => {
    const size = 64 * MiB;
    const vol = await createVol(client, size, 'raw');
    const { source, digest } = randomSource(size);
    await client.storageVolUpload(vol, source, { offset: 0, length: size });
    const sent = digest();
    const back = await sha256Of(await client.storageVolDownload(vol, { offset: 0, length: size }));
    expect(back.bytes).toBe(size);
    expect(back.hex).toBe(sent);
    // The connection is reusable after both finish exchanges.
    expect(await client.connectGetLibVersion()).toBeGreaterThan(0);
  });

  it('uploads and downloads a sub-range', async () => {
    const vol = await createVol(client, MiB, 'raw');
    await client.storageVolUpload(vol, [Buffer.from('hello world')], { offset: 1000, length: 11 });
    const r = await client.storageVolDownload(vol, { offset: 995, length: 20 });
    const chunks: Buffer[] = [];
    for await (const c of r) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks)).toEqual(
      Buffer.concat([Buffer.alloc(5), Buffer.from('hello world'), Buffer.alloc(4)]),
    );
  });

  it('aborting an upload midway marks the connection dead, and a redial works', async () => {
    const c = await ctx.connect();
    const vol = await createVol(c, 32 * MiB, 'raw');
    const ctrl = new AbortController();
    let yielded = 0;
    async function* data() {
      for (let i = 0; i < 32; i++) {
        if (i === 8) ctrl.abort(new Error('user cancelled the upload'));
        yielded++;
        yield randomBytes(MiB);
      }
    }
    const err = await c.storageVolUpload(vol, data(), { signal: ctrl.signal }).catch((e) => e);
    expect(err.message).toBe('user cancelled the upload');
    expect(yielded).toBeLessThan(32);
    expect(c.isOpen).toBe(false);
    expect(ConnectionClosedError.isInstance(c.closeReason)).toBe(true);
    expect(c.closeReason?.message).toMatch(/STORAGE_VOL_UPLOAD stream .* was abandoned/);
    const again = await c.connectGetHostname().catch((e) => e);
    expect(ConnectionClosedError.isInstance(again)).toBe(true);

    const redial = await ctx.connect();
    try {
      expect((await redial.storageVolLookupByName(pool, vol.name)).name).toBe(vol.name);
      expect(await redial.connectGetHostname()).toBe(hostname());
    } finally {
      await redial.close();
    }
  });

  it('answers 1,000 pipelined calls on one connection', async () => {
    const names = Array.from({ length: 1000 }, (_, i) => (i % 2 === 0 ? pool.name : uniqueName()));
    const results = await Promise.all(
      names.map((n) =>
        client.storagePoolLookupByName(n).then(
          (p) => p.name,
          (e: LibvirtError) => e.code,
        ),
      ),
    );
    expect(results).toEqual(names.map((n, i) => (i % 2 === 0 ? n : ErrorNumber.VIR_ERR_NO_STORAGE_POOL)));
    expect(client.connection.inFlight).toBe(0);
  });

  it('closes cleanly: CONNECT_CLOSE, then the stream ends', async () => {
    const c = await ctx.connect();
    await c.close();
    expect(c.isOpen).toBe(false);
    expect(c.closeReason?.message).toMatch(/closed by the client/);
  });
}

export type { Domain };
