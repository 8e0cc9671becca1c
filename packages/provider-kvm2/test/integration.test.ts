import { randomUUID } from 'node:crypto';
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
import type { Dialer } from '@egress-proxies/kvm-common';
import { KvmErrorCode, parseKvmConfig, sshDialer } from '@egress-proxies/kvm-common';
import {
  domainNames,
  poolVolumes,
  prepareRealHost,
  type RealHostSetup,
  realHostConfig,
} from '@egress-proxies/kvm-common/test';
import { type LibvirtTestEnv, startLibvirtTestEnv, type TestPool } from '@egress-proxies/testenv-libvirt';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKvm2Provider, type Kvm2ConfigInput, type Kvm2Provider } from '../src/index.js';

// A real libvirtd reached through a real sshd on 127.0.0.1. The guest does not need to boot:
// `domainType: qemu` (TCG) runs the firmware, which is all "running" needs.

let env: LibvirtTestEnv;
let host: RealHostSetup;
const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = tracerProvider.getTracer('kvm2-integration');
const created = new Set<string>();

function config(overrides: Partial<Kvm2ConfigInput> = {}, pool?: TestPool): Kvm2ConfigInput {
  return {
    ...realHostConfig(env, {
      bridge: host.bridge,
      ...(pool ? { pool: pool.name } : {}),
      images: {
        tiny: { url: `${host.server.base}/tiny.qcow2`, sha256: host.sha256['tiny.qcow2']! },
        wrongsum: { url: `${host.server.base}/tiny.qcow2`, sha256: 'a'.repeat(64) },
        nolength: { url: `${host.server.base}/chunked/tiny.qcow2` },
      },
    }),
    ...overrides,
  };
}

function request(name: string, imageKey = 'tiny'): CreateRequest {
  const n = instanceName('kvm2-it', `${name}-${randomUUID().slice(0, 8)}`);
  created.add(n);
  return {
    name: n,
    namespace: 'kvm2-it',
    uid: randomUUID(),
    port: 3128,
    cloudInit: '#cloud-config\nruncmd: [echo integration-sentinel]\n',
    placement: { zone: 'local', machineType: 'small', image: imageKey },
    installation: 'it-install',
  };
}

const volumes = (pool?: string) => poolVolumes(env, pool);
const domains = () => domainNames(env);

function countingDialer(inner: Dialer): Dialer & { dials: number } {
  const d = {
    dials: 0,
    dial(host: Parameters<Dialer['dial']>[0], o?: Parameters<Dialer['dial']>[1]) {
      d.dials += 1;
      return inner.dial(host, o);
    },
  };
  return d;
}

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  env = await startLibvirtTestEnv();
  host = await prepareRealHost(env, { 'tiny.qcow2': {} });
}, 600_000);

afterAll(async () => {
  await host?.cleanup(created);
  await env?.teardown();
  context.disable();
}, 120_000);

describe('kvm2 against a real libvirtd over SSH', () => {
  let provider: Kvm2Provider;
  let dialer: Dialer & { dials: number };
  let req: CreateRequest;
  let id = '';

  it('constructing the provider does not dial', () => {
    const cfg = config();
    dialer = countingDialer(sshDialer(parseKvmConfig('kvm2', cfg)));
    provider = createKvm2Provider(cfg, { name: 'kvm2-it', dialer, tracer });
    expect(dialer.dials).toBe(0);
  });

  it('check is Ready with details', async () => {
    const [r] = await provider.check();
    expect(r).toMatchObject({ target: 'local', ready: true, reason: 'Ready' });
    expect(r!.details).toMatchObject({ user: 'root', pool: env.pool.name, poolState: '2' });
    expect(r!.details.libvirtVersion).toMatch(/^\d+\.\d+\.\d+$/);
    expect(r!.details.hostname).toBeTruthy();
    expect(Number(r!.details.poolAvailableGiB)).toBeGreaterThan(0);
  }, 60_000);

  it('create returns hosts/<host>/domains/<name>, with child spans under the caller span', async () => {
    req = request('basic');
    exporter.reset();
    const parent = tracer.startSpan('provider.create');
    id = await context.with(trace.setSpan(context.active(), parent), () => provider.create(req));
    parent.end();
    expect(id).toBe(`hosts/local/domains/${req.name}`);
    const spans = exporter.getFinishedSpans();
    const parentId = parent.spanContext().spanId;
    const named = (n: string) => spans.filter((s) => s.name === n);
    expect(named('kvm2.DomainDefineXML')).toHaveLength(1);
    expect(named('kvm2.DomainDefineXML')[0]!.parentSpanContext?.spanId).toBe(parentId);
    expect(named('kvm2.dial').length).toBeGreaterThanOrEqual(1);
    expect(named('kvm2.dial')[0]!.parentSpanContext?.spanId).toBe(parentId);
    expect(named('kvm2.download')).toHaveLength(1);
    expect(await domains()).toContain(req.name);
  }, 180_000);

  it('a second create returns the same ID and defines nothing new', async () => {
    // Other suites define and undefine domains on the same libvirtd at the same time, so the
    // check is scoped to this proxy: still exactly one domain carries its UID, and no define
    // call was made.
    const ours = async () => (await provider.listByTag()).filter((i) => i.uid === req.uid).map((i) => i.id);
    expect(await ours()).toEqual([id]);
    exporter.reset();
    expect(await provider.create(req)).toBe(id);
    expect(await ours()).toEqual([id]);
    expect(exporter.getFinishedSpans().filter((s) => s.name === 'kvm2.DomainDefineXML')).toHaveLength(0);
  }, 120_000);

  it('get reads back uid and createdAt', async () => {
    const inst = await provider.get(id);
    expect(inst.id).toBe(id);
    expect(inst.uid).toBe(req.uid);
    expect(inst.installation).toBe('it-install');
    expect(inst.createdAt).toBeInstanceOf(Date);
    expect(Math.abs(inst.createdAt!.getTime() - Date.now())).toBeLessThan(10 * 60_000);
    // No guest OS: up, but without an address.
    expect(inst.state).toBe(InstanceState.Provisioning);
  }, 60_000);

  it('listByTag contains it', async () => {
    const all = await provider.listByTag();
    const mine = all.find((i) => i.id === id);
    expect(mine).toMatchObject({ uid: req.uid });
  }, 60_000);

  it('delete, then get is NotFound, then delete again succeeds', async () => {
    await provider.delete(id);
    const err = await provider.get(id).catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    await provider.delete(id);
    expect(await domains()).not.toContain(req.name);
  }, 120_000);

  it('the pool keeps the base image and its marker, and no per-VM volume', async () => {
    const vols = await volumes();
    expect(vols).toContain('base-tiny.qcow2');
    expect(vols).toContain('base-tiny.qcow2.sha256');
    expect(vols.filter((v) => v.startsWith('proxy-'))).toEqual([]);
  }, 60_000);

  it('a sha256 mismatch is Permanent and leaves no volume', async () => {
    const r = request('badsum', 'wrongsum');
    const err = await provider.create(r).catch((e: unknown) => e);
    expect(ProviderError.isInstance(err)).toBe(true);
    expect((err as ProviderError).kind).toBe(ErrorKind.Permanent);
    expect((err as ProviderError).code).toBe(KvmErrorCode.ImageChecksumMismatch);
    const vols = await volumes();
    expect(vols.filter((v) => v.startsWith('base-wrongsum'))).toEqual([]);
    expect(vols.filter((v) => v.startsWith(r.name))).toEqual([]);
    expect(await domains()).not.toContain(r.name);
  }, 120_000);

  it('an image server without Content-Length is Permanent and leaves no volume', async () => {
    const r = request('nolength', 'nolength');
    const err = await provider.create(r).catch((e: unknown) => e);
    expect((err as ProviderError).kind).toBe(ErrorKind.Permanent);
    expect((err as ProviderError).message).toMatch(/Content-Length/);
    expect((await volumes()).filter((v) => v.startsWith('base-nolength'))).toEqual([]);
  }, 60_000);

  it('a pool too small is QuotaExceeded naming pool, available and needed', async () => {
    const small = await env.createSmallPool(32 * 1024 * 1024);
    const p = createKvm2Provider(config({}, small), { name: 'kvm2-it-small' });
    try {
      const r = request('quota');
      const err = await p.create(r).catch((e: unknown) => e);
      expect(ProviderError.isInstance(err)).toBe(true);
      expect((err as ProviderError).kind).toBe(ErrorKind.QuotaExceeded);
      expect((err as ProviderError).details).toMatchObject({ pool: small.name });
      expect(Number((err as ProviderError).details.needed)).toBeGreaterThan(
        Number((err as ProviderError).details.available),
      );
      expect((await volumes(small.name)).length).toBe(0);
    } finally {
      await p.close();
    }
  }, 120_000);

  it('a host key that does not match known_hosts is Permanent, and the Checker says HostKeyMismatch', async () => {
    const p = createKvm2Provider(config({ knownHostsFile: env.wrongKnownHostsPath }), {
      name: 'kvm2-it-hostkey',
    });
    try {
      const err = (await p.listByTag().catch((e: unknown) => e)) as ProviderError;
      expect(err.kind).toBe(ErrorKind.Permanent);
      expect(err.code).toBe(ErrorCode.HostKeyRejected);
      const [r] = await p.check();
      expect(r).toMatchObject({ ready: false, reason: 'HostKeyMismatch' });
    } finally {
      await p.close();
    }
  }, 60_000);

  it('a key the server refuses is Permanent, and the Checker says Unauthorized; key bytes never show', async () => {
    const p = createKvm2Provider(config({ sshKeyFile: env.otherUserKey.privateKeyPath }), {
      name: 'kvm2-it-auth',
    });
    try {
      const err = (await p
        .get(`hosts/local/domains/${instanceName('kvm2-it', 'x')}`)
        .catch((e: unknown) => e)) as ProviderError;
      expect(err.kind).toBe(ErrorKind.Permanent);
      expect(err.code).toBe(ErrorCode.AuthFailed);
      const [r] = await p.check();
      expect(r).toMatchObject({ ready: false, reason: 'Unauthorized' });
      const keyBody = env.otherUserKey.privateKey.toString('utf8').split('\n')[1]!;
      expect(JSON.stringify([err.message, r])).not.toContain(keyBody);
    } finally {
      await p.close();
    }
  }, 60_000);

  it('a missing key file is Transient CREDENTIALS_UNAVAILABLE, and the Checker says CredentialsUnavailable', async () => {
    const p = createKvm2Provider(config({ sshKeyFile: join(host.dir, 'no-such-key') }), {
      name: 'kvm2-it-nokey',
    });
    try {
      const err = (await p.listByTag().catch((e: unknown) => e)) as ProviderError;
      expect(err.kind).toBe(ErrorKind.Transient);
      expect(err.code).toBe(ErrorCode.CredentialsUnavailable);
      const [r] = await p.check();
      expect(r).toMatchObject({ ready: false, reason: 'CredentialsUnavailable' });
    } finally {
      await p.close();
    }
  }, 60_000);

  it('close releases the connection; later calls are Permanent', async () => {
    await provider.close();
    const err = await provider.listByTag().catch((e: unknown) => e);
    expect((err as ProviderError).kind).toBe(ErrorKind.Permanent);
    expect((err as ProviderError).code).not.toBe(ErrorCode.Transient);
  });
});
