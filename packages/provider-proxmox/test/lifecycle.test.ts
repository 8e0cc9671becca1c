import {
  instanceName,
  isNotFound,
  isPermanent,
  isTransient,
  type ProviderError,
} from '@egress-proxies/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSetup, startFakeSetup } from '../src/test/index.js';

let s: FakeSetup;
beforeAll(async () => {
  s = await startFakeSetup();
});
afterAll(async () => {
  await s.close();
});

const req = (n: string, uid = `uid-${n}`) => ({
  name: instanceName('ns', n),
  namespace: 'ns',
  uid,
  port: 3128,
  cloudInit: '#cloud-config\n',
  placement: { machineType: 'small', image: 'debian' },
});

describe('create / get / delete over the fake', () => {
  it('creates a running VM with the mark, tag, seed, config and resized disk', async () => {
    const p = s.provider();
    const r = req('a');
    const id = await p.create(r);
    expect(id).toMatch(/^vms\/\d+\/proxy-[0-9a-f]{16}$/);
    const vm = s.fake.vmNamed(r.name)!;
    expect(vm.running).toBe(true);
    expect(vm.config.tags).toBe('proxy_operator');
    expect(String(vm.config.description)).toContain(`proxy-operator-uid=${r.uid}`);
    expect(vm.config.ide2).toBe(`local:iso/${r.name}-seed.iso,media=cdrom`);
    expect(vm.config.scsi0).toMatch(/size=10G/);
    expect(s.fake.volumes('pve1', 'local').has(`iso/${r.name}-seed.iso`)).toBe(true);

    const inst = await p.get(id);
    expect(inst.state).toBe('Running');
    expect(inst.uid).toBe(r.uid);
    expect(inst.ip).toMatch(/^10\./);
    expect(inst.createdAt).toBeInstanceOf(Date);
  });

  it('is idempotent: a second create returns the same ID and clones nothing', async () => {
    const p = s.provider();
    const r = req('b');
    const id1 = await p.create(r);
    const clones = s.fake.callsTo('POST', /\/clone$/).length;
    const id2 = await p.create(r);
    expect(id2).toBe(id1);
    expect(s.fake.callsTo('POST', /\/clone$/).length).toBe(clones);
  });

  it('a running Get is at most four requests', async () => {
    const p = s.provider();
    const id = await p.create(req('c'));
    const before = s.fake.calls.length;
    await p.get(id);
    expect(s.fake.calls.length - before).toBe(4);
  });

  it('lists ours by the mark and deletes VM and seed', async () => {
    const p = s.provider();
    const r = req('d');
    const id = await p.create(r);
    const list = await p.listByTag();
    expect(list.map((i) => i.id)).toContain(id);
    await p.delete(id);
    expect(s.fake.vmNamed(r.name)).toBeUndefined();
    expect(s.fake.volumes('pve1', 'local').has(`iso/${r.name}-seed.iso`)).toBe(false);
    await expect(p.get(id)).rejects.toSatisfy(isNotFound);
    await p.delete(id); // absent is success
  });

  it('refuses a VM with our name but another UID as Permanent', async () => {
    const p = s.provider();
    const r = req('e');
    await p.create(r);
    const err = await p.create({ ...r, uid: 'someone-else' }).catch((e) => e);
    expect(isPermanent(err)).toBe(true);
    expect((err as ProviderError).code).toBe('FOREIGN_INSTANCE');
  });

  it('a bad placement is Permanent before any request', async () => {
    const p = s.provider();
    const before = s.fake.calls.length;
    const err = await p
      .create({ ...req('f'), placement: { machineType: 'huge', image: 'debian' } })
      .catch((e) => e);
    expect(isPermanent(err)).toBe(true);
    expect(s.fake.calls.length).toBe(before);
  });

  it('a locked VM is Transient to Get', async () => {
    const p = s.provider();
    const id = await p.create(req('g'));
    const vm = s.fake.vmNamed(req('g').name)!;
    vm.config.lock = 'backup';
    await expect(p.get(id)).rejects.toSatisfy(isTransient);
    delete vm.config.lock;
  });
});
