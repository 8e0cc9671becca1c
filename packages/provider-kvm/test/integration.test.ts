import { randomUUID } from 'node:crypto';
import {
  type CreateRequest,
  ErrorCode,
  instanceName,
  isNotFound,
  KVM2_METADATA_NAMESPACE,
  type ProviderError,
} from '@egress-proxies/contract';
import { KvmFamilyProvider } from '@egress-proxies/kvm-common';
import {
  domainNames,
  poolVolumes,
  prepareRealHost,
  type RealHostSetup,
  realHostConfig,
} from '@egress-proxies/kvm-common/test';
import { type LibvirtTestEnv, startLibvirtTestEnv } from '@egress-proxies/testenv-libvirt';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createKvmProvider, kvmFlavour } from '../src/index.js';

// Smoke test of the kvm type on a real libvirtd reached through a real sshd, sharing the host
// and the pool with a kvm2-namespaced entry: neither may see the other's domain.

let env: LibvirtTestEnv;
let host: RealHostSetup;
const names = new Set<string>();

beforeAll(async () => {
  env = await startLibvirtTestEnv();
  host = await prepareRealHost(env, { 'tiny.qcow2': {} });
}, 600_000);

afterAll(async () => {
  await host?.cleanup(names);
  await env?.teardown();
}, 120_000);

function request(label: string): CreateRequest {
  const name = instanceName('kvm-it', `${label}-${randomUUID().slice(0, 8)}`);
  names.add(name);
  return {
    name,
    namespace: 'kvm-it',
    uid: randomUUID(),
    port: 3128,
    cloudInit: '#cloud-config\n',
    placement: { machineType: 'small', image: 'tiny' },
  };
}

it('kvm creates, reads, lists and deletes on a real host shared with a kvm2 entry', async () => {
  const cfg = realHostConfig(env, {
    bridge: host.bridge,
    images: { tiny: { url: `${host.server.base}/tiny.qcow2` } },
  });
  const kvm = createKvmProvider(cfg, { name: 'kvm-it' });
  // The same machinery in kvm2's namespace: what a kvm2 entry on this host would write.
  const kvm2 = new KvmFamilyProvider(
    { ...kvmFlavour, type: 'kvm2', namespace: KVM2_METADATA_NAMESPACE, prefix: 'kvm2', spanPrefix: 'kvm2' },
    cfg,
    { name: 'kvm2-it' },
  );
  try {
    const [health] = await kvm.check();
    expect(health).toMatchObject({ ready: true, reason: 'Ready' });

    const a = request('kvm');
    const b = request('kvm2');
    const idA = await kvm.create(a);
    const idB = await kvm2.create(b);
    expect(idA).toBe(`hosts/local/domains/${a.name}`);
    expect(await domainNames(env)).toEqual(expect.arrayContaining([a.name, b.name]));

    // Other suites' kvm2 domains may share this libvirtd, so each list is read for these two IDs:
    // each type lists its own and never the other's.
    const seen = async (p: typeof kvm) =>
      (await p.listByTag()).map((i) => i.id).filter((id) => id === idA || id === idB);
    expect(await seen(kvm)).toEqual([idA]);
    expect(await seen(kvm2)).toEqual([idB]);
    expect((await kvm.get(idA)).uid).toBe(a.uid);
    expect(isNotFound(await kvm.get(idB).catch((e: unknown) => e))).toBe(true);
    const adopt = (await kvm.create({ ...b, uid: b.uid }).catch((e: unknown) => e)) as ProviderError;
    expect(adopt.code).toBe(ErrorCode.UnmarkedInstance);
    // Deleting the other type's ID leaves its domain alone.
    await kvm.delete(idB);
    expect(await domainNames(env)).toContain(b.name);

    await kvm.delete(idA);
    await kvm2.delete(idB);
    expect(await domainNames(env)).not.toEqual(expect.arrayContaining([a.name]));
    const vols = await poolVolumes(env);
    expect(vols).toEqual(expect.arrayContaining(['base-tiny.qcow2', 'base-tiny.qcow2.sha256']));
    expect(vols.filter((v) => v.startsWith('proxy-'))).toEqual([]);
  } finally {
    await kvm.close();
    await kvm2.close();
  }
}, 300_000);
