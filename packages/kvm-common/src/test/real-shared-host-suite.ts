import { ErrorCode, isNotFound } from '@egress-proxies/contract';
import type { KvmFlavour } from '../flavour.js';
import { createKvmFamilyProvider, type KvmFamilyProvider } from '../provider.js';
import { failure } from './real-fixtures.js';
import { domainNames, poolVolumes, realHostConfig } from './real-helpers.js';
import { useRealHost } from './real-suite-host.js';
import type { RealSuiteOptions } from './real-suite-options.js';
import { runningVitest } from './vitest-api.js';

export interface RealSharedHostSuiteOptions extends RealSuiteOptions {
  /** The other type's flavour: its entry is built from the shared machinery directly. */
  other: KvmFlavour;
}

/**
 * A kvm and a kvm2 entry on one host and one pool: neither lists, gets, adopts or deletes the
 * other's domain. Other suites' domains share the libvirtd, so lists are read for these two IDs.
 */
export function describeRealSharedHost(o: RealSharedHostSuiteOptions): void {
  const vitest = runningVitest();
  const { describe, it, expect } = vitest;
  const { flavour, other } = o;

  describe(`${flavour.type} and ${other.type} sharing a real host and pool`, () => {
    const real = useRealHost(o, vitest, 'shared', { 'tiny.qcow2': {} });
    const { request } = real;

    it(`neither lists, gets, adopts nor deletes the other's domain`, async () => {
      const { env, host } = real;
      const cfg = realHostConfig(env, {
        bridge: host.bridge,
        images: { tiny: { url: `${host.server.base}/tiny.qcow2` } },
      });
      const mine = o.createProvider(cfg, { name: `${flavour.type}-shared` });
      const theirs = createKvmFamilyProvider(other, cfg, { name: `${other.type}-shared` });
      try {
        const a = request(flavour.type);
        const b = request(other.type);
        const idA = await mine.create(a);
        const idB = await theirs.create(b);
        expect(await domainNames(env)).toEqual(expect.arrayContaining([a.name, b.name]));

        const seen = async (p: KvmFamilyProvider) =>
          (await p.listByTag()).map((i) => i.id).filter((id) => id === idA || id === idB);
        expect(await seen(mine)).toEqual([idA]);
        expect(await seen(theirs)).toEqual([idB]);
        expect((await mine.get(idA)).uid).toBe(a.uid);
        expect(isNotFound(await mine.get(idB).catch((e: unknown) => e))).toBe(true);
        expect(isNotFound(await theirs.get(idA).catch((e: unknown) => e))).toBe(true);
        expect((await failure(mine.create(b)))?.code).toBe(ErrorCode.UnmarkedInstance);
        expect((await failure(theirs.create(a)))?.code).toBe(ErrorCode.UnmarkedInstance);

        // Deleting the other type's ID leaves its domain and volumes alone.
        await mine.delete(idB);
        await theirs.delete(idA);
        expect(await domainNames(env)).toEqual(expect.arrayContaining([a.name, b.name]));
        const vols = await poolVolumes(env);
        for (const n of [a.name, b.name])
          expect(vols).toEqual(expect.arrayContaining([`${n}.qcow2`, `${n}-seed.iso`]));

        await mine.delete(idA);
        await theirs.delete(idB);
        const left = await domainNames(env);
        expect(left.filter((n) => n === a.name || n === b.name)).toEqual([]);
        const after = await poolVolumes(env);
        expect(after).toEqual(expect.arrayContaining(['base-tiny.qcow2', 'base-tiny.qcow2.sha256']));
        expect(after.filter((v) => v.startsWith('proxy-'))).toEqual([]);
      } finally {
        await mine.close();
        await theirs.close();
      }
    }, 300_000);
  });
}
