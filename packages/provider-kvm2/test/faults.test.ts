import { randomUUID } from 'node:crypto';
import {
  type CreateRequest,
  createLogger,
  ErrorCode,
  ErrorKind,
  instanceName,
  type LogLine,
  type ProviderError,
} from '@egress-proxies/contract';
import {
  BACKEND_METHODS,
  type Dialer,
  type KvmBackend,
  parseKvmConfig,
  sshDialer,
} from '@egress-proxies/kvm-common';
import {
  domainNames,
  poolVolumes,
  prepareRealHost,
  type RealHostSetup,
  realHostConfig,
} from '@egress-proxies/kvm-common/test';
import { type LibvirtTestEnv, startLibvirtTestEnv } from '@egress-proxies/testenv-libvirt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKvm2Provider, type Kvm2ConfigInput } from '../src/index.js';

// Faults on the real stack: after each, the next create converges and nothing is leaked
// (domains and pool volumes counted).

let env: LibvirtTestEnv;
let host: RealHostSetup;
const created = new Set<string>();

beforeAll(async () => {
  env = await startLibvirtTestEnv();
  host = await prepareRealHost(
    env,
    { 'tiny.qcow2': {}, 'big.qcow2': { virtualSize: '256M', dataMiB: 48 } },
    { slowBytesPerSec: 8 * 1024 * 1024 },
  );
}, 600_000);

afterAll(async () => {
  await host?.cleanup(created);
  await env?.teardown();
}, 120_000);

function config(): Kvm2ConfigInput {
  return realHostConfig(env, {
    bridge: host.bridge,
    images: {
      tiny: { url: `${host.server.base}/tiny.qcow2`, sha256: host.sha256['tiny.qcow2']! },
      big: { url: `${host.server.base}/slow/big.qcow2`, sha256: host.sha256['big.qcow2']! },
    },
  });
}

function request(label: string, image = 'tiny'): CreateRequest {
  const name = instanceName('kvm2-faults', `${label}-${randomUUID().slice(0, 8)}`);
  created.add(name);
  return {
    name,
    namespace: 'kvm2-faults',
    uid: randomUUID(),
    port: 3128,
    placement: { image, machineType: 'small' },
  };
}

/** Runs `before(method)` ahead of every seam call on every connection the dialer makes. */
function hookedDialer(inner: Dialer, before: (method: string) => Promise<void> | void): Dialer {
  return {
    async dial(host, o) {
      const b = await inner.dial(host, o);
      const hooked: Record<string, unknown> = {};
      for (const m of BACKEND_METHODS) {
        const fn = (b[m] as (...a: unknown[]) => Promise<unknown>).bind(b);
        hooked[m] = async (...args: unknown[]) => {
          await before(m);
          return fn(...args);
        };
      }
      Object.defineProperty(hooked, 'isOpen', { get: () => b.isOpen });
      hooked.close = () => b.close();
      return hooked as unknown as KvmBackend;
    },
  };
}

/** Our domains still defined, and the per-VM volumes in the pool. */
async function leftovers() {
  const doms = (await domainNames(env)).filter((d) => created.has(d));
  const vols = (await poolVolumes(env)).filter((v) => v.startsWith('proxy-'));
  return { doms, vols };
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as ProviderError,
  );

async function convergesAndCleans(provider: ReturnType<typeof createKvm2Provider>, req: CreateRequest) {
  const id = await provider.create(req);
  expect(await domainNames(env)).toContain(req.name);
  const vols = await poolVolumes(env);
  expect(vols.filter((v) => v.startsWith(req.name)).sort()).toEqual([
    `${req.name}-seed.iso`,
    `${req.name}.qcow2`,
  ]);
  await provider.delete(id);
  expect(await leftovers()).toEqual({ doms: [], vols: [] });
}

describe('kvm2 faults on a real libvirtd over SSH', () => {
  it('the SSH connection cut during the image upload: Transient, the partial image removed, the next create converges', async () => {
    const provider = createKvm2Provider(config(), { name: 'kvm2-faults', progressIntervalMs: 200 });
    try {
      const lines: LogLine[] = [];
      let cut: Promise<void> | undefined;
      const logger = createLogger({
        verbosity: 1,
        sink: (l) => {
          lines.push(l);
          if (l.msg === 'image download progress' && !cut) cut = env.ssh.dropConnections();
        },
      });
      const req = request('cut', 'big');
      const err = await failure(provider.create(req, { logger }));
      await cut;
      expect(cut, 'the upload finished before the connection could be cut').toBeDefined();
      expect(err?.kind).toBe(ErrorKind.Transient);
      expect((await poolVolumes(env)).filter((v) => v.startsWith('base-big'))).toEqual([]);
      await convergesAndCleans(provider, req);
      expect(await poolVolumes(env)).toEqual(
        expect.arrayContaining(['base-big.qcow2', 'base-big.qcow2.sha256']),
      );
    } finally {
      await provider.close();
    }
  }, 300_000);

  it('an abort at each create step: the next create converges and nothing is leaked', async () => {
    const seen: string[] = [];
    const plain = parseKvmConfig('kvm2', config());
    let abortAt: { method: string; ac: AbortController } | undefined;
    const dialer = hookedDialer(sshDialer(plain), (m) => {
      if (!seen.includes(m)) seen.push(m);
      if (abortAt && abortAt.method === m) {
        abortAt.ac.abort();
        abortAt = undefined;
      }
    });
    const provider = createKvm2Provider(config(), { name: 'kvm2-faults-abort', dialer });
    try {
      await convergesAndCleans(provider, request('baseline'));
      // Evict the image so the steps of a first fetch are in the list too.
      const evict = async () => {
        for (const v of ['base-tiny.qcow2.sha256', 'base-tiny.qcow2'])
          await env.virsh('vol-delete', '--pool', env.pool.name, v).catch(() => {});
      };
      // The steps of a create that also fetches the image; each iteration evicts it again so
      // every one of them is reached.
      await evict();
      seen.length = 0;
      const probe = request('steps');
      const probeId = await provider.create(probe);
      const steps = seen.filter((m) => m !== 'connectListAllDomains');
      await provider.delete(probeId);
      expect(steps.length).toBeGreaterThan(10);
      for (const step of steps) {
        await evict();
        const req = request(`abort-${step}`);
        const ac = new AbortController();
        abortAt = { method: step, ac };
        const err = await failure(provider.create(req, { signal: ac.signal }));
        expect(abortAt, `the create never reached ${step}`).toBeUndefined();
        expect(err?.kind, `abort at ${step}`).toBe(ErrorKind.Transient);
        expect(err?.code, `abort at ${step}`).toBe(ErrorCode.Aborted);
        await convergesAndCleans(provider, req);
      }
    } finally {
      await provider.close();
    }
  }, 600_000);

  it('libvirtd restarted between two create steps: Transient, then the next create converges', async () => {
    let restartBefore: string | undefined = 'domainDefineXML';
    const plain = parseKvmConfig('kvm2', config());
    const dialer = hookedDialer(sshDialer(plain), async (m) => {
      if (m === restartBefore) {
        restartBefore = undefined;
        await env.restartLibvirtd({ waitTimeoutMs: 8 * 60_000 });
      }
    });
    const provider = createKvm2Provider(config(), { name: 'kvm2-faults-restart', dialer });
    try {
      const req = request('restart');
      const err = await failure(provider.create(req));
      expect(restartBefore).toBeUndefined();
      expect(err?.kind).toBe(ErrorKind.Transient);
      await convergesAndCleans(provider, req);
    } finally {
      await provider.close();
    }
  }, 600_000);
});
