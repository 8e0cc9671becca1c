import { type CreateRequest, ErrorCode, ErrorKind } from '@egress-proxies/contract';
import { createLogger } from '@egress-proxies/provider-utils';
import { type KvmConfigInput, parseKvmConfig } from '../config.js';
import type { KvmFamilyProvider, KvmProviderOptions } from '../provider.js';
import { sshDialer } from '../ssh-dialer.js';
import { failure, hookedDialer } from './real-fixtures.js';
import { domainNames, poolVolumes, realHostConfig } from './real-helpers.js';
import { useRealHost } from './real-suite-host.js';
import type { RealSuiteOptions } from './real-suite-options.js';
import { runningVitest } from './vitest-api.js';

/**
 * Faults on the real stack: the SSH connection cut during the image upload, an abort at each
 * create step, libvirtd restarted between two steps. After each, the next Create converges and
 * nothing is leaked: this suite's domains and the per-VM volumes of its own pool are counted.
 */
export function describeRealFaults(o: RealSuiteOptions): void {
  const vitest = runningVitest();
  const { describe, it, expect } = vitest;
  const { flavour } = o;

  describe(`${flavour.type} faults on a real libvirtd over SSH`, () => {
    const real = useRealHost(
      o,
      vitest,
      'faults',
      { 'tiny.qcow2': {}, 'big.qcow2': { virtualSize: '256M', dataMiB: 48 } },
      { slowBytesPerSec: 8 * 1024 * 1024 },
    );
    const { request } = real;

    const config = (): KvmConfigInput => {
      const { server, sha256, bridge } = real.host;
      return realHostConfig(real.env, {
        bridge,
        images: {
          tiny: { url: `${server.base}/tiny.qcow2`, sha256: sha256['tiny.qcow2']! },
          big: { url: `${server.base}/slow/big.qcow2`, sha256: sha256['big.qcow2']! },
        },
      });
    };

    const provider = (label: string, options: Omit<KvmProviderOptions, 'name'> = {}) =>
      o.createProvider(config(), { name: `${flavour.type}-faults-${label}`, ...options });

    /** This suite's domains still defined, and the per-VM volumes left in its pool. */
    const leftovers = async () => ({
      doms: (await domainNames(real.env)).filter((d) => request.names.has(d)),
      vols: (await poolVolumes(real.env)).filter((v) => v.startsWith('proxy-')),
    });

    const convergesAndCleans = async (p: KvmFamilyProvider, req: CreateRequest) => {
      const id = await p.create(req);
      expect(await domainNames(real.env)).toContain(req.name);
      const vols = await poolVolumes(real.env);
      expect(vols.filter((v) => v.startsWith(req.name)).sort()).toEqual([
        `${req.name}-seed.iso`,
        `${req.name}.qcow2`,
      ]);
      await p.delete(id);
      expect(await leftovers()).toEqual({ doms: [], vols: [] });
    };

    const evict = async (image: string) => {
      for (const v of [`base-${image}.qcow2.sha256`, `base-${image}.qcow2`])
        await real.env.virsh('vol-delete', '--pool', real.env.pool.name, v).catch(() => {});
    };

    it('the SSH connection cut during the image upload: Transient, the partial image removed, the next create converges', async () => {
      const p = provider('cut', { progressIntervalMs: 200 });
      try {
        let cut: Promise<void> | undefined;
        const logger = createLogger({
          verbosity: 1,
          sink: (l) => {
            if (l.msg === 'image download progress' && !cut) cut = real.env.ssh.dropConnections();
          },
        });
        const req = request('cut', 'big');
        const err = await failure(p.create(req, { logger }));
        await cut;
        expect(cut, 'the upload finished before the connection could be cut').toBeDefined();
        expect(err?.kind).toBe(ErrorKind.Transient);
        expect((await poolVolumes(real.env)).filter((v) => v.startsWith('base-big'))).toEqual([]);
        await convergesAndCleans(p, req);
        expect(await poolVolumes(real.env)).toEqual(
          expect.arrayContaining(['base-big.qcow2', 'base-big.qcow2.sha256']),
        );
      } finally {
        await p.close();
      }
    }, 300_000);

    it('an abort at each create step: the next create converges and nothing is leaked', async () => {
      const seen: string[] = [];
      let abortAt: { method: string; ac: AbortController } | undefined;
      const dialer = hookedDialer(sshDialer(parseKvmConfig(flavour.type, config())), (m) => {
        if (!seen.includes(m)) seen.push(m);
        if (abortAt?.method === m) {
          abortAt.ac.abort();
          abortAt = undefined;
        }
      });
      const p = provider('abort', { dialer });
      try {
        await convergesAndCleans(p, request('baseline'));
        // The steps of a create that also fetches the image; each iteration evicts it again so
        // every one of them is reached.
        await evict('tiny');
        seen.length = 0;
        const probeId = await p.create(request('steps'));
        const steps = seen.filter((m) => m !== 'connectListAllDomains');
        await p.delete(probeId);
        expect(steps.length).toBeGreaterThan(10);
        expect(steps).toEqual(
          expect.arrayContaining(['storageVolUpload', 'domainDefineXML', 'domainCreate']),
        );
        for (const step of steps) {
          await evict('tiny');
          const req = request(`abort-${step}`);
          const ac = new AbortController();
          abortAt = { method: step, ac };
          const err = await failure(p.create(req, { signal: ac.signal }));
          expect(abortAt, `the create never reached ${step}`).toBeUndefined();
          expect(err?.kind, `abort at ${step}`).toBe(ErrorKind.Transient);
          expect(err?.code, `abort at ${step}`).toBe(ErrorCode.Aborted);
          await convergesAndCleans(p, req);
        }
      } finally {
        await p.close();
      }
    }, 600_000);

    it('libvirtd restarted between two create steps: Transient, then the next create converges', async () => {
      let restartBefore: string | undefined = 'domainDefineXML';
      const dialer = hookedDialer(sshDialer(parseKvmConfig(flavour.type, config())), async (m) => {
        if (m !== restartBefore) return;
        restartBefore = undefined;
        // Waits until no other suite on the machine holds libvirtd.
        await real.env.restartLibvirtd({ waitTimeoutMs: 8 * 60_000 });
      });
      const p = provider('restart', { dialer });
      try {
        const req = request('restart');
        const err = await failure(p.create(req));
        expect(restartBefore, 'the create never reached domainDefineXML').toBeUndefined();
        expect(err?.kind).toBe(ErrorKind.Transient);
        await convergesAndCleans(p, req);
      } finally {
        await p.close();
      }
    }, 600_000);
  });
}
