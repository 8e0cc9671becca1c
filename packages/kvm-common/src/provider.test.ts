import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CreateRequest,
  ErrorCode,
  ErrorKind,
  isTransient,
  type ProviderError,
} from '@egress-proxies/contract';
import { createLogger, type LogLine } from '@egress-proxies/provider-utils';
import { DomainState } from 'libvirt-rpc-ts';
import { afterEach, describe, expect, it } from 'vitest';
import { type KvmConfig, parseKvmConfig } from './config.js';
import type { KvmFlavour } from './flavour.js';
import type { ImageFetcher } from './http-fetcher.js';
import { createKvmFamilyProvider, type KvmFamilyProvider } from './provider.js';
import { loadCredentials } from './ssh-dialer.js';
import { FakeLibvirt } from './test/fake-libvirt.js';
import { otherFlavour, testFlavour } from './test/flavour.js';
import { memoryImage } from './test/harness.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Setup {
  fake: FakeLibvirt;
  provider: KvmFamilyProvider;
  image: Buffer;
  fetches: { n: number };
  dir: string;
  config: KvmConfig;
}

function setup(
  o: {
    fake?: FakeLibvirt;
    flavour?: KvmFlavour;
    image?: Buffer;
    sha256?: string | null;
    fetcher?: ImageFetcher;
  } = {},
): Setup {
  const dir = mkdtempSync(join(tmpdir(), 'kvm-common-test-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'key'), 'KEY-MATERIAL');
  writeFileSync(join(dir, 'known_hosts'), 'h ssh-ed25519 AAAA\n');
  const image = o.image ?? randomBytes(8192);
  const sha256 =
    o.sha256 === null ? undefined : (o.sha256 ?? createHash('sha256').update(image).digest('hex'));
  const config = parseKvmConfig('kvm2', {
    sshKeyFile: join(dir, 'key'),
    knownHostsFile: join(dir, 'known_hosts'),
    diskSizeGb: 2,
    images: { deb: { url: 'http://images.invalid/deb.qcow2', ...(sha256 ? { sha256 } : {}) } },
    machineTypes: { small: { vcpus: 1, memoryMiB: 512 } },
    hosts: [
      { name: 'alpha', address: 'alpha:22', user: 'virt', bridge: 'br0' },
      { name: 'beta', address: 'beta:22', user: 'virt', bridge: 'br0' },
    ],
  });
  const fake =
    o.fake ??
    new FakeLibvirt({
      hosts: [
        { name: 'alpha', pool: 'default' },
        { name: 'beta', pool: 'default' },
      ],
    });
  const fetches = { n: 0 };
  const inner = o.fetcher ?? memoryImage(image);
  const provider = createKvmFamilyProvider(o.flavour ?? testFlavour, config, {
    name: 'p1',
    dialer: fake.dialer(() => loadCredentials(config)),
    fetcher: (url, opts) => {
      fetches.n += 1;
      return inner(url, opts);
    },
    pollIntervalMs: 1,
    startTimeoutMs: 1_000,
    progressIntervalMs: 0,
  });
  return { fake, provider, image, fetches, dir, config };
}

const request = (over: Partial<CreateRequest> = {}): CreateRequest => ({
  name: `proxy-${randomBytes(8).toString('hex')}`,
  namespace: 'ns',
  uid: randomUUID(),
  port: 3128,
  cloudInit: '#cloud-config\n',
  placement: { zone: 'alpha', machineType: 'small', image: 'deb' },
  ...over,
});

const steps = (fake: FakeLibvirt) => fake.calls().map((c) => c.step);
const rejection = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as ProviderError,
  );

describe('connections', () => {
  it('one dial per host under concurrency, and a redial after the connection drops', async () => {
    const { fake, provider } = setup();
    await Promise.all(Array.from({ length: 8 }, () => provider.listByTag()));
    expect(fake.dials).toBe(2);
    fake.host('alpha').unreachable = true;
    expect(isTransient(await rejection(provider.listByTag()))).toBe(true);
    fake.host('alpha').unreachable = false;
    await provider.listByTag();
    expect(fake.dials).toBe(3);
  });

  it('an aborted call does not cut off other operations on the host', async () => {
    const { fake, provider } = setup();
    const id = await provider.create(request());
    await provider.listByTag();
    const dials = fake.dials;
    const gate = fake.block('domainGetState');
    const ac = new AbortController();
    const pending = rejection(provider.get(id, { signal: ac.signal }));
    await gate.reached;
    ac.abort();
    const err = await pending;
    expect(err?.code).toBe(ErrorCode.Aborted);
    // The pooled connection is still there and serves another operation at once.
    const listed = await provider.listByTag();
    expect(listed.map((i) => i.id)).toContain(id);
    gate.release();
    expect((await provider.get(id)).id).toBe(id);
    expect(fake.dials).toBe(dials);
  });

  it('credentials are read on every dial: a missing key is Transient, a restored one works', async () => {
    const { fake, provider, dir } = setup();
    rmSync(join(dir, 'key'));
    const err = await rejection(provider.listByTag());
    expect(err?.kind).toBe(ErrorKind.Transient);
    expect(err?.code).toBe(ErrorCode.CredentialsUnavailable);
    writeFileSync(join(dir, 'key'), 'ROTATED-KEY');
    await provider.listByTag();
    expect(fake.dials).toBe(2);
  });
});

describe('create', () => {
  it('resumes a paused domain of ours instead of failing', async () => {
    const { fake, provider } = setup();
    const req = request();
    await provider.create(req);
    fake.host('alpha').domains.get(req.name)!.state = DomainState.PAUSED;
    fake.clearCalls();
    await provider.create(req);
    expect(steps(fake)).toContain('domainResume');
    expect(fake.host('alpha').domains.get(req.name)!.state).toBe(DomainState.RUNNING);
  });

  it('restarts a pmsuspended domain of ours', async () => {
    const { fake, provider } = setup();
    const req = request();
    await provider.create(req);
    const d = fake.host('alpha').domains.get(req.name)!;
    d.state = DomainState.PMSUSPENDED;
    await provider.create(req);
    expect(d.state).toBe(DomainState.RUNNING);
  });

  it('reuses a matching overlay and replaces one whose backing file or size differs', async () => {
    const { fake, provider } = setup();
    const req = request();
    await provider.create(req);
    const pool = fake.host('alpha').pools.get('default')!;
    fake.host('alpha').domains.delete(req.name);
    fake.clearCalls();
    await provider.create(req);
    expect(fake.calls().filter((c) => c.step === 'storageVolDelete' && c.instance === req.name)).toHaveLength(
      1,
    ); // the seed only
    fake.host('alpha').domains.delete(req.name);
    const overlay = pool.volumes.get(`${req.name}.qcow2`)!;
    overlay.capacity = 1024;
    fake.clearCalls();
    await provider.create(req);
    expect(pool.volumes.get(`${req.name}.qcow2`)!.capacity).toBe(2 * 1024 ** 3);
    fake.host('alpha').domains.delete(req.name);
    pool.volumes.get(`${req.name}.qcow2`)!.backingPath = '/elsewhere/base.qcow2';
    await provider.create(req);
    expect(pool.volumes.get(`${req.name}.qcow2`)!.backingPath).toBe(`${pool.path}/base-deb.qcow2`);
  });

  it('the cloud-init is never in a log line at any verbosity', async () => {
    const { provider } = setup();
    const lines: LogLine[] = [];
    const logger = createLogger({ verbosity: 2, sink: (l) => lines.push(l) });
    await provider.create(request({ cloudInit: '#cloud-config\n# SENTINEL-CLOUD-INIT\n' }), { logger });
    expect(lines.length).toBeGreaterThan(5);
    expect(JSON.stringify(lines)).not.toContain('SENTINEL-CLOUD-INIT');
    expect(JSON.stringify(lines)).not.toContain('KEY-MATERIAL');
  });
});

describe('image cache', () => {
  it('downloads once, streams on a dedicated connection and writes the marker last', async () => {
    const { fake, provider, fetches } = setup();
    await provider.create(request());
    const calls = fake.calls();
    const baseUpload = calls.findIndex((c) => c.step === 'storageVolUpload' && !c.instance);
    const markerCreate = calls.findLastIndex((c) => c.step === 'storageVolCreateXML' && !c.instance);
    expect(baseUpload).toBeGreaterThan(-1);
    expect(markerCreate).toBeGreaterThan(baseUpload);
    const pooled = calls.find((c) => c.step === 'domainLookupByName')!.connection;
    expect(calls[baseUpload]!.connection).not.toBe(pooled);
    await provider.create(request());
    expect(fetches.n).toBe(1);
    const vols = [...fake.host('alpha').pools.get('default')!.volumes.keys()];
    expect(vols).toEqual(expect.arrayContaining(['base-deb.qcow2', 'base-deb.qcow2.sha256']));
  });

  it('concurrent creates fetch the image once', async () => {
    const { provider, fetches } = setup();
    await Promise.all(Array.from({ length: 4 }, () => provider.create(request())));
    expect(fetches.n).toBe(1);
  });

  it('a missing marker re-downloads; a changed sha256 re-downloads', async () => {
    const fake = new FakeLibvirt({
      hosts: [
        { name: 'alpha', pool: 'default' },
        { name: 'beta', pool: 'default' },
      ],
    });
    const first = setup({ fake });
    await first.provider.create(request());
    fake.host('alpha').pools.get('default')!.volumes.delete('base-deb.qcow2.sha256');
    await first.provider.create(request());
    expect(first.fetches.n).toBe(2);
    const second = setup({ fake, image: randomBytes(4096) });
    await second.provider.create(request());
    expect(second.fetches.n).toBe(1);
    expect(fake.host('alpha').pools.get('default')!.volumes.get('base-deb.qcow2')!.data).toEqual(
      second.image,
    );
  });

  it('a sha256 mismatch is Permanent and leaves no base volume', async () => {
    const { fake, provider } = setup({ sha256: 'b'.repeat(64) });
    const err = await rejection(provider.create(request()));
    expect(err?.kind).toBe(ErrorKind.Permanent);
    expect(err?.code).toBe('IMAGE_CHECKSUM_MISMATCH');
    expect(
      [...fake.host('alpha').pools.get('default')!.volumes.keys()].filter((v) => v.startsWith('base-')),
    ).toEqual([]);
  });

  it('a download cut short removes the partial volume and is Transient', async () => {
    const image = randomBytes(4096);
    const { fake, provider } = setup({
      image,
      fetcher: async () => {
        const { Readable } = await import('node:stream');
        const body = new Readable({
          read() {
            this.push(image.subarray(0, 100));
            this.destroy(new Error('socket hang up'));
          },
        });
        return { contentLength: image.length, body };
      },
    });
    const err = await rejection(provider.create(request()));
    expect(err?.kind).toBe(ErrorKind.Transient);
    expect(
      [...fake.host('alpha').pools.get('default')!.volumes.keys()].filter((v) => v.startsWith('base-')),
    ).toEqual([]);
  });

  it('logs download progress at V1 with bytes, percent and rate', async () => {
    const { provider } = setup();
    const lines: LogLine[] = [];
    await provider.create(request(), { logger: createLogger({ verbosity: 1, sink: (l) => lines.push(l) }) });
    const progress = lines.filter((l) => l.msg === 'image download progress');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toMatchObject({ total: 8192, provider: 'p1' });
    expect(progress[0]).toHaveProperty('percent');
    expect(progress[0]).toHaveProperty('rateBytesPerSec');
  });

  it('a full pool is QuotaExceeded naming pool, available and needed, before any volume is made', async () => {
    const { fake, provider } = setup();
    fake.host('alpha').pools.get('default')!.full = true;
    const err = await rejection(provider.create(request()));
    expect(err?.kind).toBe(ErrorKind.QuotaExceeded);
    expect(err?.details).toMatchObject({ pool: 'default', available: 0 });
    expect(Number(err?.details.needed)).toBeGreaterThan(2 * 1024 ** 3);
    expect(fake.host('alpha').pools.get('default')!.volumes.size).toBe(0);
  });

  it('an inactive pool inside create is Transient like a missing one: both are fixed on the host', async () => {
    const { fake, provider } = setup();
    fake.host('alpha').condition = 'pool-inactive';
    const inactive = await rejection(provider.create(request()));
    expect([inactive?.kind, inactive?.code]).toEqual([ErrorKind.Transient, 'POOL_NOT_ACTIVE']);
    fake.host('alpha').condition = 'pool-missing';
    const missing = await rejection(provider.create(request()));
    expect([missing?.kind, missing?.code]).toEqual([ErrorKind.Transient, 'POOL_NOT_FOUND']);
  });
});

describe('two types on one host', () => {
  it('kvm and kvm2 entries never list, get or adopt each other’s domains', async () => {
    const fake = new FakeLibvirt({
      hosts: [
        { name: 'alpha', pool: 'default' },
        { name: 'beta', pool: 'default' },
      ],
    });
    const a = setup({ fake, flavour: testFlavour });
    const b = setup({ fake, flavour: otherFlavour });
    const req = request();
    const id = await a.provider.create(req);
    expect((await a.provider.listByTag()).map((i) => i.id)).toEqual([id]);
    expect(await b.provider.listByTag()).toEqual([]);
    expect((await rejection(b.provider.get(id)))?.kind).toBe(ErrorKind.NotFound);
    expect((await rejection(b.provider.create(req)))?.code).toBe(ErrorCode.UnmarkedInstance);
    await b.provider.delete(id);
    expect((await a.provider.get(id)).id).toBe(id);
  });
});

describe('secondary resources', () => {
  it('lists per-instance volumes without a domain, deletes them, and never a live one or a base image', async () => {
    const { fake, provider } = setup();
    const live = request();
    await provider.create(live);
    const orphan = request();
    fake.failNext('domainDefineXML', 1, 'internal');
    expect((await rejection(provider.create(orphan)))?.kind).toBe(ErrorKind.Transient);
    const listed = await provider.listSecondary();
    expect(listed.map((r) => r.instanceName)).toEqual([orphan.name, orphan.name]);
    expect(listed.map((r) => r.kind).sort()).toEqual(['overlay', 'seed']);
    for (const r of listed) await provider.deleteSecondary(r.id);
    expect(await provider.listSecondary()).toEqual([]);
    const baseErr = await rejection(provider.deleteSecondary('hosts/alpha/volumes/base-deb.qcow2'));
    expect(baseErr?.kind).toBe(ErrorKind.Permanent);
    await provider.deleteSecondary(`hosts/alpha/volumes/${live.name}.qcow2`);
    expect(fake.host('alpha').pools.get('default')!.volumes.has(`${live.name}.qcow2`)).toBe(true);
  });
});

describe('address and checker', () => {
  it('asks the sources in the flavour order: agent first for kvm2, ARP first for kvm; leases last', async () => {
    const fake = new FakeLibvirt({
      hosts: [
        { name: 'alpha', pool: 'default' },
        { name: 'beta', pool: 'default' },
      ],
    });
    const a = setup({ fake, flavour: testFlavour });
    const b = setup({ fake, flavour: otherFlavour });
    const ra = request();
    const rb = request();
    const ida = await a.provider.create(ra);
    const idb = await b.provider.create(rb);
    for (const name of [ra.name, rb.name])
      fake.host('alpha').domains.get(name)!.addresses = {
        agent: '192.0.2.1',
        arp: '192.0.2.2',
        lease: '192.0.2.3',
      };
    expect((await a.provider.get(ida)).ip).toBe('192.0.2.1');
    expect((await b.provider.get(idb)).ip).toBe('192.0.2.2');
    fake.host('alpha').domains.get(ra.name)!.addresses = { lease: '192.0.2.3' };
    expect((await a.provider.get(ida)).ip).toBe('192.0.2.3');
  });

  it('checks every host on a connection of its own, never the pooled one', async () => {
    const { fake, provider } = setup();
    await provider.listByTag();
    const pooled = new Set(fake.calls().map((c) => c.connection));
    fake.clearCalls();
    const results = await provider.check();
    expect(results.map((r) => [r.target, r.reason])).toEqual([
      ['alpha', 'Ready'],
      ['beta', 'Ready'],
    ]);
    expect(results[0]!.details).toMatchObject({
      user: 'virt',
      pool: 'default',
      hostname: 'alpha.fake',
      poolState: '2',
    });
    const used = new Set(fake.calls().map((c) => c.connection));
    expect([...used].filter((c) => pooled.has(c))).toEqual([]);
    fake.clearCalls();
    await provider.listByTag();
    expect(new Set(fake.calls().map((c) => c.connection))).toEqual(pooled);
  });
});

describe('delete', () => {
  it('a missing pool is a no-op after the domain is gone; an unconfigured host is a no-op', async () => {
    const { fake, provider } = setup();
    const req = request();
    const id = await provider.create(req);
    fake.host('alpha').pools.delete('default');
    await provider.delete(id);
    expect(fake.host('alpha').domains.has(req.name)).toBe(false);
    fake.clearCalls();
    await provider.delete(`hosts/retired/domains/${req.name}`);
    expect(fake.calls()).toEqual([]);
  });
});
