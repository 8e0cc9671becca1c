import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CreateRequest,
  ErrorCode,
  ErrorKind,
  InstanceState,
  instanceName,
  isNotFound,
  ProviderError,
} from '@egress-proxies/contract';
import { context, trace } from '@opentelemetry/api';
import { type KvmConfigInput, parseKvmConfig } from '../config.js';
import { KvmErrorCode } from '../errors.js';
import type { KvmFamilyProvider } from '../provider.js';
import { sshDialer } from '../ssh-dialer.js';
import { failure, type HookedDialer, hookedDialer } from './real-fixtures.js';
import { domainMetadata, domainNames, poolVolumes, realHostConfig } from './real-helpers.js';
import { useRealHost } from './real-suite-host.js';
import type { RealSuiteOptions } from './real-suite-options.js';
import type { RealTracing } from './real-tracing.js';
import { runningVitest } from './vitest-api.js';

/** What the flavour under test must show on a real host; each package states its own. */
export interface RealFlavourFacts {
  /** Span names are `<spanPrefix>.<Method>`, `<spanPrefix>.dial`, `<spanPrefix>.download`. */
  spanPrefix: string;
  /** The namespace its mark is written in. */
  namespace: string;
  /** The other type's namespace, where its domains carry no mark. */
  foreignNamespace: string;
  /** The `DomainInterfaceAddressesSource` numbers Get asks, in order, when none answers. */
  addressSources: readonly number[];
}

export interface RealBackendSuiteOptions extends RealSuiteOptions {
  tracing: RealTracing;
  facts: RealFlavourFacts;
}

/**
 * The ordered integration sequence of the kvm family on a real libvirtd reached through a real
 * sshd (construct, Check, Create, Create again, Get, ListByTag, the flavour's mark and address
 * order, Delete, Get, Delete again, the pool afterwards), then what a real host gives: volumes
 * left by a crash listed for collection, a sha256 mismatch, a server without Content-Length, a
 * pool too small, host keys and user keys refused. Other suites share the libvirtd, so every
 * check on the host's domains is scoped to this suite's names and UIDs; the pool is its own.
 */
export function describeRealBackend(o: RealBackendSuiteOptions): void {
  const vitest = runningVitest();
  const { describe, it, expect, beforeAll, afterAll } = vitest;
  const { flavour, tracing, facts } = o;
  const span = (method: string) => `${facts.spanPrefix}.${method}`;

  describe(`${flavour.type} against a real libvirtd over SSH`, () => {
    const real = useRealHost(o, vitest, 'it', { 'tiny.qcow2': {} });
    const { request } = real;
    let provider: KvmFamilyProvider;
    let dialer: HookedDialer;
    let req: CreateRequest;
    let id = '';

    const config = (overrides: Partial<KvmConfigInput> = {}, pool?: string): KvmConfigInput => {
      const { server, sha256 } = real.host;
      return {
        ...realHostConfig(real.env, {
          bridge: real.host.bridge,
          ...(pool ? { pool } : {}),
          images: {
            tiny: { url: `${server.base}/tiny.qcow2`, sha256: sha256['tiny.qcow2']! },
            wrongsum: { url: `${server.base}/tiny.qcow2`, sha256: 'a'.repeat(64) },
            nolength: { url: `${server.base}/chunked/tiny.qcow2` },
          },
        }),
        ...overrides,
      };
    };

    /** Runs `fn` on a throwaway provider built from `overrides`, closing it afterwards. */
    const withProvider = async <T>(
      label: string,
      overrides: Partial<KvmConfigInput>,
      fn: (p: KvmFamilyProvider) => Promise<T>,
      pool?: string,
    ): Promise<T> => {
      const p = o.createProvider(config(overrides, pool), { name: `${flavour.type}-it-${label}` });
      try {
        return await fn(p);
      } finally {
        await p.close();
      }
    };

    beforeAll(() => void context.setGlobalContextManager(tracing.contextManager.enable()));
    afterAll(() => context.disable());

    /** The main provider's host hands out addresses from a plan (documentation blocks, no routing needed). */
    const planned = (): KvmConfigInput => {
      const base = config();
      return {
        ...base,
        egressPlans: {
          doc: {
            ipv4: { ranges: ['192.0.2.0/29'], gateway: '192.0.2.1' },
            ipv6: { prefix: '2001:db8:e::/64', gateway: '2001:db8:e::1' },
            nameservers: ['192.0.2.53'],
          },
        },
        hosts: base.hosts.map((h) => ({ ...h, egressPlan: 'doc' })),
      };
    };

    it('constructing the provider does not dial', () => {
      const cfg = planned();
      dialer = hookedDialer(sshDialer(parseKvmConfig(flavour.type, cfg)));
      provider = o.createProvider(cfg, { name: `${flavour.type}-it`, dialer, tracer: tracing.tracer });
      expect(provider.type).toBe(flavour.type);
      expect(dialer.dials).toBe(0);
    });

    it('check is Ready with details', async () => {
      const [r] = await provider.check();
      expect(r).toMatchObject({ target: 'local', ready: true, reason: 'Ready' });
      expect(r!.details).toMatchObject({
        user: real.env.ssh.username,
        pool: real.env.pool.name,
        poolState: '2',
      });
      expect(r!.details.libvirtVersion).toMatch(/^\d+\.\d+\.\d+$/);
      expect(r!.details.hostname).toBeTruthy();
      expect(Number(r!.details.poolAvailableGiB)).toBeGreaterThan(0);
    }, 60_000);

    it('create returns hosts/<host>/domains/<name>, with child spans under the caller span', async () => {
      req = request('basic');
      tracing.exporter.reset();
      const parent = tracing.tracer.startSpan('provider.create');
      id = await context.with(trace.setSpan(context.active(), parent), () => provider.create(req));
      parent.end();
      expect(id).toBe(`hosts/local/domains/${req.name}`);
      const parentId = parent.spanContext().spanId;
      const named = (n: string) => tracing.exporter.getFinishedSpans().filter((s) => s.name === n);
      expect(named(span('DomainDefineXML'))).toHaveLength(1);
      expect(named(span('DomainDefineXML'))[0]!.parentSpanContext?.spanId).toBe(parentId);
      expect(named(span('dial')).length).toBeGreaterThanOrEqual(1);
      expect(named(span('dial'))[0]!.parentSpanContext?.spanId).toBe(parentId);
      expect(named(span('download'))).toHaveLength(1);
      expect(await domainNames(real.env)).toContain(req.name);
    }, 180_000);

    it('a second create returns the same ID and defines nothing new', async () => {
      // Scoped to this proxy: other suites define and undefine domains on this libvirtd.
      const ours = async () => (await provider.listByTag()).filter((i) => i.uid === req.uid).map((i) => i.id);
      expect(await ours()).toEqual([id]);
      const defines = dialer.calls.get('domainDefineXML');
      const volumes = dialer.calls.get('storageVolCreateXML');
      expect(await provider.create(req)).toBe(id);
      expect(await ours()).toEqual([id]);
      // The domain exists, so only its state is ensured: no define, no volume made.
      expect(dialer.calls.get('domainDefineXML')).toBe(defines);
      expect(dialer.calls.get('storageVolCreateXML')).toBe(volumes);
    }, 120_000);

    it('get reads back uid, createdAt and the installation', async () => {
      const inst = await provider.get(id);
      expect(inst.id).toBe(id);
      expect(inst.uid).toBe(req.uid);
      expect(inst.installation).toBe(req.installation);
      expect(inst.createdAt).toBeInstanceOf(Date);
      expect(Math.abs(inst.createdAt!.getTime() - Date.now())).toBeLessThan(10 * 60_000);
      // No guest OS: up, but without an address.
      expect(inst.state).toBe(InstanceState.Provisioning);
    }, 60_000);

    it('listByTag contains it', async () => {
      const mine = (await provider.listByTag()).filter((i) => i.id === id);
      expect(mine).toEqual([expect.objectContaining({ uid: req.uid })]);
    }, 60_000);

    it(`the domain carries the mark in the ${flavour.type} namespace, and none in the other's`, async () => {
      const mark = await domainMetadata(real.env, req.name, facts.namespace);
      // libvirt hands the element back without its prefix; the lookup by namespace is the check.
      expect(mark).toMatch(/^<instance /);
      expect(mark).toContain('managed="true"');
      expect(mark).toContain(`uid="${req.uid}"`);
      expect(mark).toContain(`installation="${req.installation}"`);
      expect(mark).toMatch(/egressIPv4="192\.0\.2\.[2-6]"/);
      expect(await domainMetadata(real.env, req.name, facts.foreignNamespace)).toBeUndefined();
    }, 60_000);

    it('with an egress plan: the seed holds the network-config for the MAC libvirt gave the NIC', async () => {
      const inst = await provider.get(id);
      expect(inst.egress?.ipv4).toMatch(/^192\.0\.2\.[2-6]$/);
      expect(inst.egress?.ipv6).toMatch(/^2001:db8:e:/);
      // The live definition, as libvirt kept it.
      const xml = await real.env.virsh('dumpxml', req.name);
      const mac = /<mac address=['"]([0-9a-f:]+)['"]\/>/.exec(xml)?.[1];
      expect(mac).toMatch(/^52:54:00(:[0-9a-f]{2}){3}$/);
      // The seed as the guest reads it: the network-config file is stored as is, zero-padded.
      const file = join(real.host.dir, 'seed.iso');
      await real.env.virsh('vol-download', '--pool', real.env.pool.name, `${req.name}-seed.iso`, file);
      const iso = readFileSync(file);
      const at = iso.indexOf('{\n  "version": 2');
      expect(at).toBeGreaterThan(0);
      const eth0 = JSON.parse(iso.subarray(at, iso.indexOf(0, at)).toString('utf8')).ethernets.eth0;
      expect(eth0.match).toEqual({ macaddress: mac });
      expect(eth0.addresses).toEqual([`${inst.egress!.ipv4}/29`, `${inst.egress!.ipv6}/64`]);
      expect([eth0.gateway4, eth0.gateway6]).toEqual(['192.0.2.1', '2001:db8:e::1']);
    }, 60_000);

    it('get asks the address sources in the flavour order, and with no answer reports no address', async () => {
      // The guest never boots, so no source answers and every one is asked. (libvirt 9.0's ARP
      // reader also fails outright on kernels that send the netlink DONE with the dump, "wrong
      // nlmsg len"; a failing source is skipped.)
      const from = dialer.trail.length;
      const inst = await provider.get(id);
      const sources = dialer.trail
        .slice(from)
        .filter((c) => c.method === 'domainInterfaceAddresses')
        .map((c) => c.args[1]);
      expect(sources).toEqual(facts.addressSources);
      expect(inst.state).toBe(InstanceState.Provisioning);
      expect(inst.ip).toBeUndefined();
    }, 60_000);

    it('delete, then get is NotFound, then delete again succeeds', async () => {
      await provider.delete(id);
      expect(isNotFound(await provider.get(id).catch((e: unknown) => e))).toBe(true);
      await provider.delete(id);
      expect(await domainNames(real.env)).not.toContain(req.name);
    }, 120_000);

    it('the pool keeps the base image and its marker, and no per-VM volume', async () => {
      const vols = await poolVolumes(real.env);
      expect(vols).toEqual(expect.arrayContaining(['base-tiny.qcow2', 'base-tiny.qcow2.sha256']));
      expect(vols.filter((v) => v.startsWith('proxy-'))).toEqual([]);
    }, 60_000);

    it('volumes left without a domain are listed as secondary resources and deleted by ID', async () => {
      const r = request('orphan');
      // A create that dies just before the define, as a crashed operator would.
      const crashing = hookedDialer(sshDialer(parseKvmConfig(flavour.type, config())), (m) => {
        if (m === 'domainDefineXML') throw new Error('simulated crash before the define');
      });
      const p = o.createProvider(config(), { name: `${flavour.type}-it-orphan`, dialer: crashing });
      try {
        expect(await failure(p.create(r))).toBeDefined();
        expect(await domainNames(real.env)).not.toContain(r.name);
        const orphans = (await p.listSecondary()).filter((s) => s.instanceName === r.name);
        expect(orphans.map((s) => s.kind).sort()).toEqual(['overlay', 'seed']);
        for (const s of orphans) await p.deleteSecondary(s.id);
        expect((await poolVolumes(real.env)).filter((v) => v.startsWith(r.name))).toEqual([]);
        expect((await p.listSecondary()).filter((s) => s.instanceName === r.name)).toEqual([]);
      } finally {
        await p.close();
      }
    }, 120_000);

    it('a sha256 mismatch is Permanent and leaves no volume', async () => {
      const r = request('badsum', 'wrongsum');
      const err = await failure(provider.create(r));
      expect(ProviderError.isInstance(err)).toBe(true);
      expect(err?.kind).toBe(ErrorKind.Permanent);
      expect(err?.code).toBe(KvmErrorCode.ImageChecksumMismatch);
      const vols = await poolVolumes(real.env);
      expect(vols.filter((v) => v.startsWith('base-wrongsum'))).toEqual([]);
      expect(vols.filter((v) => v.startsWith(r.name))).toEqual([]);
      expect(await domainNames(real.env)).not.toContain(r.name);
    }, 120_000);

    it('an image server without Content-Length is Permanent and leaves no volume', async () => {
      const r = request('nolength', 'nolength');
      const err = await failure(provider.create(r));
      expect(err?.kind).toBe(ErrorKind.Permanent);
      expect(err?.message).toMatch(/Content-Length/);
      const vols = await poolVolumes(real.env);
      expect(vols.filter((v) => v.startsWith('base-nolength'))).toEqual([]);
      expect(vols.filter((v) => v.startsWith(r.name))).toEqual([]);
    }, 60_000);

    it('a pool on a tmpfs too small is QuotaExceeded naming pool, available and needed', async () => {
      const small = await real.env.createSmallPool(32 * 1024 * 1024);
      await withProvider(
        'small',
        {},
        async (p) => {
          const err = await failure(p.create(request('quota')));
          expect(ProviderError.isInstance(err)).toBe(true);
          expect(err?.kind).toBe(ErrorKind.QuotaExceeded);
          expect(err?.details).toMatchObject({ pool: small.name });
          expect(Number(err?.details.needed)).toBeGreaterThan(Number(err?.details.available));
          expect(await poolVolumes(real.env, small.name)).toEqual([]);
        },
        small.name,
      );
    }, 120_000);

    it('a host key that does not match known_hosts is Permanent, and the Checker says HostKeyMismatch', async () => {
      await withProvider('hostkey', { knownHostsFile: real.env.wrongKnownHostsPath }, async (p) => {
        const err = await failure(p.listByTag());
        expect(err?.kind).toBe(ErrorKind.Permanent);
        expect(err?.code).toBe(ErrorCode.HostKeyRejected);
        expect((await p.check())[0]).toMatchObject({ ready: false, reason: 'HostKeyMismatch' });
      });
    }, 60_000);

    it('a host missing from known_hosts is Permanent, and the Checker says HostKeyMismatch', async () => {
      // The sshd's own key, listed under another address only: for this address it is unknown.
      const [, ...key] = readFileSync(real.env.ssh.knownHostsPath, 'utf8').trim().split(/\s+/);
      const path = join(real.host.dir, 'unrelated_known_hosts');
      writeFileSync(path, `[192.0.2.1]:22 ${key.join(' ')}\n`);
      await withProvider('unknownhost', { knownHostsFile: path }, async (p) => {
        const err = await failure(p.create(request('unknownhost')));
        expect(err?.kind).toBe(ErrorKind.Permanent);
        expect(err?.code).toBe(ErrorCode.HostKeyRejected);
        expect((await p.check())[0]).toMatchObject({ ready: false, reason: 'HostKeyMismatch' });
      });
    }, 60_000);

    it('a key the server refuses is Permanent, and the Checker says Unauthorized; key bytes never show', async () => {
      await withProvider('auth', { sshKeyFile: real.env.otherUserKey.privateKeyPath }, async (p) => {
        const err = await failure(p.get(`hosts/local/domains/${instanceName(`${flavour.type}-it`, 'x')}`));
        expect(err?.kind).toBe(ErrorKind.Permanent);
        expect(err?.code).toBe(ErrorCode.AuthFailed);
        const [r] = await p.check();
        expect(r).toMatchObject({ ready: false, reason: 'Unauthorized' });
        const keyBody = real.env.otherUserKey.privateKey.toString('utf8').split('\n')[1]!;
        expect(JSON.stringify([err?.message, r])).not.toContain(keyBody);
      });
    }, 60_000);

    it('a missing key file is Transient CREDENTIALS_UNAVAILABLE, and the Checker says CredentialsUnavailable', async () => {
      await withProvider('nokey', { sshKeyFile: join(real.host.dir, 'no-such-key') }, async (p) => {
        const err = await failure(p.listByTag());
        expect(err?.kind).toBe(ErrorKind.Transient);
        expect(err?.code).toBe(ErrorCode.CredentialsUnavailable);
        expect((await p.check())[0]).toMatchObject({ ready: false, reason: 'CredentialsUnavailable' });
      });
    }, 60_000);

    it('close releases the connection; later calls are Permanent', async () => {
      await provider.close();
      const err = await failure(provider.listByTag());
      expect(err?.kind).toBe(ErrorKind.Permanent);
    });
  });
}
