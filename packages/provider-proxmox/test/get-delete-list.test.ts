import {
  instanceName,
  isNotFound,
  isPermanent,
  isTransient,
  type ProviderError,
} from '@egress-proxies/contract';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProxmoxProvider } from '../src/provider.js';
import { type FakeSetup, startFakeSetup } from '../src/test/index.js';

let s: FakeSetup;
let p: ProxmoxProvider;
beforeEach(async () => {
  s = await startFakeSetup({ nodes: ['pve1', 'pve2'] });
  p = s.provider();
});
afterEach(async () => {
  await s.close();
});

const req = (n: string) => ({
  name: instanceName('gdl', n),
  namespace: 'gdl',
  uid: `uid-${n}`,
  port: 3128,
  installation: 'inst-1',
  placement: { zone: 'pve1', machineType: 'small', image: 'debian' },
});
async function made(n: string) {
  const id = await p.create(req(n));
  return { id, vm: s.fake.vm(Number(id.split('/')[1])) };
}

describe('get: the state table', () => {
  it('running + agent IPv4 is Running with the address; installation and createdAt read back', async () => {
    const { id } = await made('run');
    const i = await p.get(id);
    expect(i).toMatchObject({ state: 'Running', uid: 'uid-run', installation: 'inst-1' });
    expect(i.ip).toMatch(/^10\./);
  });

  it('rows: agent down, no IPv4, not configured, prelaunch, paused, stopped, hibernated', async () => {
    const { id, vm } = await made('rows');
    vm.agent = 'down';
    expect((await p.get(id)).state).toBe('Provisioning');
    vm.agent = [
      { name: 'lo', 'ip-addresses': [{ 'ip-address': '127.0.0.1', 'ip-address-type': 'ipv4', prefix: 8 }] },
    ];
    const noIp = await p.get(id);
    expect([noIp.state, noIp.ip]).toEqual(['Provisioning', undefined]);
    delete vm.config.agent;
    expect((await p.get(id)).state).toBe('Stopped');
    vm.config.agent = '1';
    vm.qmp = 'prelaunch';
    expect((await p.get(id)).state).toBe('Provisioning');
    vm.qmp = 'paused';
    expect((await p.get(id)).state).toBe('Stopped');
    vm.running = false;
    expect((await p.get(id)).state).toBe('Stopped');
    s.fake.hibernate(vm.vmid);
    const before = s.fake.calls.length;
    expect((await p.get(id)).state).toBe('Stopped');
    expect(s.fake.calls.length - before).toBe(2);
  });

  it('another name or no mark is NotFound; absent is NotFound', async () => {
    const { id, vm } = await made('nf');
    await expect(p.get(id.replace(/proxy-[0-9a-f]+$/, 'proxy-0000000000000000'))).rejects.toSatisfy(
      isNotFound,
    );
    vm.config.description = 'hand made';
    await expect(p.get(id)).rejects.toSatisfy(isNotFound);
    await expect(p.get('vms/100999/proxy-x')).rejects.toSatisfy(isNotFound);
  });

  it('an unreachable node (status unknown) and a lock are Transient; a bad ID Permanent', async () => {
    const { id, vm } = await made('tr');
    s.fake.setNodeOnline('pve1', false);
    await expect(p.get(id)).rejects.toSatisfy(isTransient);
    s.fake.setNodeOnline('pve1', true);
    vm.config.lock = 'migrate';
    await expect(p.get(id)).rejects.toSatisfy(isTransient);
    delete vm.config.lock;
    await expect(p.get('vms/0099/x')).rejects.toSatisfy(isPermanent);
  });

  it('follows a migrated VM to its new node', async () => {
    const { id, vm } = await made('mig');
    vm.node = 'pve2';
    expect((await p.get(id)).state).toBe('Running');
    expect(s.fake.calls.at(-1)?.path).toMatch(/^\/nodes\/pve2\//);
  });
});

describe('delete', () => {
  it('stops, deletes the seed on the VM node, destroys with purge', async () => {
    const r = req('del');
    const { id } = await made('del');
    await p.delete(id);
    const calls = s.fake.calls.map((c) => `${c.method} ${c.path}`);
    const stop = calls.findIndex((c) => c.endsWith('/status/stop'));
    const seed = calls.findIndex((c) => c.includes('/storage/local/content/'));
    const destroy = calls.findIndex((c) => /^DELETE \/nodes\/pve1\/qemu\/\d+$/.test(c));
    expect(stop).toBeGreaterThan(0);
    expect(seed).toBeGreaterThan(stop);
    expect(destroy).toBeGreaterThan(seed);
    expect(s.fake.calls.find((c) => c.method === 'DELETE' && /qemu\/\d+$/.test(c.path))?.query).toEqual({
      purge: '1',
      'destroy-unreferenced-disks': '1',
    });
    expect(s.fake.vmNamed(r.name)).toBeUndefined();
  });

  it('a failed seed delete fails the call and leaves the VM for the next Delete', async () => {
    const { id, vm } = await made('seedfail');
    s.fake.inject({
      method: 'DELETE',
      path: /\/storage\/local\/content\//,
      status: 403,
      text: 'Permission check failed (/storage/local, Datastore.Allocate)',
      times: 1,
    });
    await expect(p.delete(id)).rejects.toSatisfy(isPermanent);
    expect(s.fake.vms.has(vm.vmid)).toBe(true);
    await p.delete(id);
    expect(s.fake.vms.has(vm.vmid)).toBe(false);
  });

  it('destroys a hibernated VM of ours without a stop', async () => {
    const { id, vm } = await made('hib');
    s.fake.hibernate(vm.vmid);
    await p.delete(id);
    expect(s.fake.vms.has(vm.vmid)).toBe(false);
    expect(s.fake.callsTo('POST', /status\/stop$/)).toHaveLength(0);
  });

  it('leaves a VM that is not ours alone and deletes the seed on every node', async () => {
    s.fake.addVm(150000, 'pve1', { name: 'proxy-other' });
    await p.delete('vms/150000/proxy-other');
    expect(s.fake.vms.has(150000)).toBe(true);
    const seedDeletes = s.fake
      .callsTo('DELETE', /\/storage\/local\/content\/iso%2Fproxy-other-seed\.iso$/)
      .map((c) => c.path.split('/')[2]);
    expect(
      seedDeletes.length +
        s.fake.callsTo('DELETE', /\/storage\/local\/content\/iso\/proxy-other-seed\.iso$/).length,
    ).toBe(2);
  });

  it('with no VM at all, a node that fails transiently is skipped', async () => {
    s.fake.setNodeOnline('pve2', false);
    await p.delete('vms/150001/proxy-none');
    s.fake.setNodeOnline('pve2', true);
  });

  it('a locked VM is Transient to Delete', async () => {
    const { id, vm } = await made('dlock');
    vm.config.lock = 'backup';
    await expect(p.delete(id)).rejects.toSatisfy(isTransient);
    expect(s.fake.vms.has(vm.vmid)).toBe(true);
  });
});

describe('listByTag', () => {
  it('one resources read plus one config read per candidate; the mark decides', async () => {
    const a = await made('la');
    await made('lb');
    s.fake.addVm(160000, 'pve2', { name: 'proxy-unmarked', tags: 'proxy_operator' });
    s.fake.addVm(160001, 'pve2', { name: 'web' });
    const before = s.fake.calls.length;
    const list = await p.listByTag();
    expect(list.map((i) => i.id).sort()).toEqual([a.id, expect.any(String)].sort());
    expect(list).toHaveLength(2);
    expect(s.fake.calls.length - before).toBe(1 + 3);
    expect(list[0]).toMatchObject({ uid: expect.stringMatching(/^uid-l/), installation: 'inst-1' });
  });

  it('skips an unreadable candidate; a failed resources read fails the whole list', async () => {
    const a = await made('lc');
    const b = await made('ld');
    s.fake.inject({
      method: 'GET',
      path: `/nodes/pve1/qemu/${a.vm.vmid}/config`,
      status: 500,
      text: 'got timeout',
      times: 1,
    });
    expect((await p.listByTag()).map((i) => i.id)).toEqual([b.id]);
    s.fake.inject({
      method: 'GET',
      path: '/cluster/resources',
      status: 596,
      text: 'Connection timed out',
      times: 1,
    });
    const err = (await p.listByTag().catch((e) => e)) as ProviderError;
    expect([err.kind, err.code]).toEqual(['Transient', 'UNREACHABLE']);
  });

  it('a clone in flight (nameless) is not a candidate', async () => {
    s.fake.addVm(170000, 'pve1', { description: ' qmclone temporary file', lock: 'clone' }).rrd = false;
    expect(await p.listByTag()).toEqual([]);
  });
});

describe('orphaned seeds (listSecondary / deleteSecondary)', () => {
  it('lists a seed whose VM is gone and deletes it; a live VM keeps its seed', async () => {
    const live = await made('live');
    const gone = await made('gone');
    const goneName = req('gone').name;
    s.fake.vms.delete(gone.vm.vmid); // destroyed behind the operator's back
    const list = await p.listSecondary();
    expect(list).toEqual([
      expect.objectContaining({
        id: `seed/pve1/local:iso/${goneName}-seed.iso`,
        kind: 'seed-iso',
        instanceName: goneName,
        createdAt: expect.any(Date),
      }),
    ]);
    await p.deleteSecondary(list[0]!.id);
    expect(s.fake.volumes('pve1', 'local').has(`iso/${goneName}-seed.iso`)).toBe(false);
    expect(s.fake.volumes('pve1', 'local').has(`iso/${req('live').name}-seed.iso`)).toBe(true);
    expect(live.id).toBeTruthy();
    await expect(p.deleteSecondary('seed/pve1/../../etc')).rejects.toSatisfy(isPermanent);
  });

  it('a seed left on node-local storage after its VM migrated is an orphan', async () => {
    const m = await made('moved');
    m.vm.node = 'pve2';
    expect((await p.listSecondary()).map((x) => x.instanceName)).toEqual([req('moved').name]);
  });
});

describe('orphaned seeds and the resources lag', () => {
  it('a VM pvestatd has not reported yet (no name in resources) keeps its seed', async () => {
    const fresh = await made('fresh');
    fresh.vm.rrd = false; // as right after the clone: status unknown, no name
    expect(await p.listSecondary()).toEqual([]);
    s.fake.inject({
      method: 'GET',
      path: `/nodes/pve1/qemu/${fresh.vm.vmid}/config`,
      status: 500,
      text: 'got timeout',
      times: 1,
    });
    expect(await p.listSecondary()).toEqual([]);
  });
});
