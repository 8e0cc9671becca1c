import { writeFileSync } from 'node:fs';
import { instanceName, isPermanent, type ProviderError } from '@egress-proxies/contract';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSetup, startFakeSetup } from '../src/test/index.js';
import { vmidFor } from '../src/vmid.js';

let s: FakeSetup;
beforeEach(async () => {
  s = await startFakeSetup({ nodes: ['pve1', 'pve2'] });
});
afterEach(async () => {
  await s.close();
});

const RANGE = { min: 100_000, max: 199_999 };
const req = (n: string, uid = `uid-${n}`, zone = 'pve1') => ({
  name: instanceName('create', n),
  namespace: 'create',
  uid,
  port: 3128,
  placement: { zone, machineType: 'small', image: 'debian' },
});
const until = async (cond: () => boolean) => {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!cond()) throw new Error('condition never held');
};

describe('create', () => {
  it('places the VMID by FNV-1a of the UID', async () => {
    const r = req('hash');
    const id = await s.provider().create(r);
    expect(id).toBe(`vms/${vmidFor(r.uid, 0, RANGE)}/${r.name}`);
  });

  it('probes past a VMID taken under another name, without waiting on its lock', async () => {
    const r = req('probe');
    const v0 = vmidFor(r.uid, 0, RANGE);
    s.fake.addVm(v0, 'pve1', { name: 'someone-else', lock: 'backup' });
    const id = await s.provider().create(r);
    expect(id).toBe(`vms/${vmidFor(r.uid, 1, RANGE)}/${r.name}`);
    expect(s.fake.callsTo('GET', new RegExp(`/qemu/${v0}/config$`))).toHaveLength(0);
  });

  it('a VM with our name but no mark is Permanent UNMARKED_INSTANCE and left alone', async () => {
    const r = req('unmarked');
    s.fake.addVm(123456, 'pve1', { name: r.name });
    const err = (await s
      .provider()
      .create(r)
      .catch((e) => e)) as ProviderError;
    expect([err.kind, err.code]).toEqual(['Permanent', 'UNMARKED_INSTANCE']);
    expect(s.fake.vm(123456).config.name).toBe(r.name);
  });

  it('a template the node lacks is Transient TEMPLATE_NOT_FOUND: the create works once it is made', async () => {
    s.fake.vms.delete(9000);
    const err = (await s
      .provider()
      .create(req('tmpl'))
      .catch((e) => e)) as ProviderError;
    expect([err.kind, err.code]).toEqual(['Transient', 'TEMPLATE_NOT_FOUND']);
    expect(s.fake.callsTo('POST', /clone$/)).toHaveLength(0);
    s.fake.addTemplate(9000, 'pve1');
    expect(await s.provider().create(req('tmpl'))).toMatch(/^vms\/\d+\//);
  });

  it('a malformed token file is Permanent INVALID_CONFIG, never quoting it', async () => {
    writeFileSync(s.tokenFile, 'not-a-token-secret-x\n');
    const err = (await s
      .provider()
      .create(req('badtoken'))
      .catch((e) => e)) as ProviderError;
    expect([err.kind, err.code]).toEqual(['Permanent', 'INVALID_CONFIG']);
    expect(err.message).not.toContain('not-a-token-secret-x');
  });

  it('two VMs with our name are Permanent', async () => {
    const r = req('twins');
    s.fake.addVm(123456, 'pve1', { name: r.name });
    s.fake.addVm(123457, 'pve2', { name: r.name });
    await expect(s.provider().create(r)).rejects.toSatisfy(isPermanent);
    expect(s.fake.callsTo('POST', /clone$/)).toHaveLength(0);
  });

  it('a retried Create does not wait on the clone in flight: Transient BUSY at once, then it adopts', async () => {
    s.fake.holdTasks('qmclone');
    const r = req('placeholder');
    const first = s.provider().create(r);
    const vmid = vmidFor(r.uid, 0, RANGE);
    await until(() => s.fake.vms.get(vmid)?.config.lock === 'clone');
    // A second provider (an operator restart) has no lock in common with the first. Waiting on
    // the clone would hold its per-name lock for minutes: it answers Transient instead.
    const retried = s.provider();
    const err = (await retried.create(r).catch((e) => e)) as ProviderError;
    expect([err.kind, err.code]).toEqual(['Transient', 'BACKEND_BUSY']);
    expect(err.message).toContain(`VM ${vmid} on node pve1 is being cloned`);
    s.fake.releaseTasks('qmclone');
    const a = await first;
    expect(await retried.create(r)).toBe(a);
    expect(s.fake.callsTo('POST', /clone$/)).toHaveLength(1);
  });

  it('a delete is not kept waiting behind a retried Create of the same name on a clone lock', async () => {
    s.fake.holdTasks('qmclone');
    const r = req('behind');
    void s
      .provider()
      .create(r)
      .catch(() => {});
    const vmid = vmidFor(r.uid, 0, RANGE);
    await until(() => s.fake.vms.get(vmid)?.config.lock === 'clone');
    const p = s.provider({}, { budgets: { pollMs: 5, cloneMs: 600_000 } });
    const create = p.create(r).catch((e: unknown) => e as ProviderError);
    // The delete of the same name takes the per-name lock after the create; it must get it
    // without waiting for the clone (it answers about the locked VM itself).
    const del = p.delete(`vms/${vmid}/${r.name}`).then(
      () => 'deleted',
      (e: ProviderError) => e.code,
    );
    expect(((await create) as ProviderError).code).toBe('BACKEND_BUSY');
    expect(await del).toBeDefined();
    s.fake.releaseTasks('qmclone');
  });

  it('a clone lock no clone task holds (its worker died with the node) is reported stuck at once', async () => {
    s.fake.holdTasks('qmclone');
    const r = req('stuck');
    const vmid = vmidFor(r.uid, 0, RANGE);
    const first = s
      .provider()
      .create(r)
      .catch((e: unknown) => e);
    await until(() => s.fake.vms.get(vmid)?.config.lock === 'clone');
    const clone = [...s.fake.tasks.values()].find((t) => t.type === 'qmclone')!;
    s.fake.abandonTask(clone.upid);
    // A restarted provider, with no memory of the lock: the node's task list says nothing runs.
    const p = s.provider({}, { budgets: { pollMs: 5, cloneMs: 600_000 } });
    const err = (await p.create(r).catch((e) => e)) as ProviderError;
    expect([err.kind, err.code]).toEqual(['Transient', 'CLONE_LOCK_STUCK']);
    expect(err.message).toContain('no clone task runs on the node');
    expect(err.message).toContain(`qm unlock ${vmid}`);
    expect(s.fake.callsTo('GET', /\/nodes\/pve1\/tasks$/).at(-1)?.query).toMatchObject({
      source: 'active',
      typefilter: 'qmclone',
    });
    s.fake.releaseTasks('qmclone');
    await first;
  });

  it("a clone lock is judged by the clone task's start time on the node, so a restart does not start the budget over", async () => {
    s.fake.holdTasks('qmclone');
    const r = req('slowclone');
    const vmid = vmidFor(r.uid, 0, RANGE);
    void s
      .provider()
      .create(r)
      .catch(() => {});
    await until(() => s.fake.vms.get(vmid)?.config.lock === 'clone');
    const clone = [...s.fake.tasks.values()].find((t) => t.type === 'qmclone')!;
    const budgets = { pollMs: 5, cloneMs: 600_000 };
    // Started just now: the clone runs, a retried create answers BUSY.
    const busy = (await s
      .provider({}, { budgets })
      .create(r)
      .catch((e) => e)) as ProviderError;
    expect(busy.code).toBe('BACKEND_BUSY');
    // The same clone, started 11 minutes ago by the node's clock: any provider, fresh or not,
    // reports it stuck at once.
    clone.starttime -= 11 * 60;
    const stuck = (await s
      .provider({}, { budgets })
      .create(r)
      .catch((e) => e)) as ProviderError;
    expect([stuck.kind, stuck.code]).toEqual(['Transient', 'CLONE_LOCK_STUCK']);
    expect(stuck.message).toMatch(
      /newest clone task on the node started \d+ s ago, past the clone budget of 600 s/,
    );
    s.fake.releaseTasks('qmclone');
  });

  it('refuses a non-template and a cloud-init drive (Permanent) and a missing template (Transient) before any clone', async () => {
    s.fake.addVm(9100, 'pve1', {
      name: 'plain',
      net0: 'virtio=BC:24:11:00:00:01,bridge=vmbr0',
      scsi0: 'local-lvm:vm-9100-disk-0,size=8G',
    });
    s.fake.addTemplate(9200, 'pve1', { config: { ide0: 'local-lvm:vm-9200-cloudinit,media=cdrom' } });
    const p = s.provider({ templates: { plain: 9100, ci: 9200, gone: 9300 } });
    for (const image of ['plain', 'ci', 'gone']) {
      const err = (await p
        .create({ ...req(`t-${image}`), placement: { zone: 'pve1', machineType: 'small', image } })
        .catch((e) => e)) as ProviderError;
      expect(err.kind, image).toBe(image === 'gone' ? 'Transient' : 'Permanent');
      expect(err.code, image).toBe(image === 'gone' ? 'TEMPLATE_NOT_FOUND' : 'TEMPLATE_INVALID');
    }
    expect(s.fake.callsTo('POST', /clone$/)).toHaveLength(0);
  });

  it('rewrites net0 for the bridge and VLAN and keeps the MAC', async () => {
    const r = req('net');
    await s.provider({ bridge: 'vmbr1', vlanTag: 42 }).create(r);
    const net0 = String(s.fake.vmNamed(r.name)!.config.net0);
    expect(net0).toMatch(/^virtio=BC:24:11:[0-9A-F:]{8},bridge=vmbr1,firewall=1,tag=42$/);
  });

  it('starts an adopted stopped VM of ours and re-uploads its seed', async () => {
    const r = req('adopt');
    const p = s.provider();
    const id = await p.create(r);
    const vm = s.fake.vmNamed(r.name)!;
    vm.running = false;
    s.fake.volumes('pve1', 'local').clear();
    expect(await p.create(r)).toBe(id);
    expect(vm.running).toBe(true);
    expect(s.fake.volumes('pve1', 'local').has(`iso/${r.name}-seed.iso`)).toBe(true);
  });

  it('a hibernated VM of ours is Permanent to Create', async () => {
    const r = req('hib');
    const p = s.provider();
    const id = await p.create(r);
    s.fake.hibernate(Number(id.split('/')[1]));
    await expect(p.create(r)).rejects.toSatisfy(isPermanent);
  });

  it('a storage-lock timeout of parallel clones is Transient BACKEND_BUSY', async () => {
    s.fake.storageLockParallel = 1;
    s.fake.holdTasks('qmclone');
    const p = s.provider();
    const a = p.create(req('lock-a')).catch((e) => e);
    const b = p.create(req('lock-b')).catch((e) => e);
    await until(() => s.fake.callsTo('POST', /clone$/).length === 2);
    s.fake.releaseTasks('qmclone');
    const results = await Promise.all([a, b]);
    const errs = results.filter((x): x is ProviderError => typeof x !== 'string');
    expect(errs).toHaveLength(1);
    expect([errs[0]!.kind, errs[0]!.code]).toEqual(['Transient', 'BACKEND_BUSY']);
  });

  it('clones on another node than the template pass target', async () => {
    const r = req('target', 'uid-target', 'pve2');
    const id = await s.provider().create(r);
    expect(s.fake.vm(Number(id.split('/')[1])).node).toBe('pve2');
    expect(s.fake.callsTo('POST', /^\/nodes\/pve1\/qemu\/9000\/clone$/)).toHaveLength(1);
  });
});

describe('a VM of ours the token can no longer audit', () => {
  // Proxmox leaves it out of /cluster/resources and answers 403 to its config (reference §1, §2);
  // the repeated create meets "config file already exists" on its hashed VMID.
  for (const zone of ['pve1', 'pve2']) {
    it(`stops a repeated create with Permanent FORBIDDEN naming VM.Audit, cloning nothing (VM on ${zone})`, async () => {
      const r = req(`unaudited-${zone}`, `uid-unaudited-${zone}`, zone);
      const p = s.provider();
      const id = await p.create(r);
      const vmid = Number(id.split('/')[1]);
      s.fake.denyOn('root@pam!operator', `/vms/${vmid}`, 'VM.Audit');
      const err = (await p.create(r).catch((e) => e)) as ProviderError;
      expect([err.kind, err.code]).toEqual(['Permanent', 'FORBIDDEN']);
      expect(err.message).toContain('VM.Audit');
      expect(err.message).toContain(`/vms/${vmid}`);
      // The first create's clone and the refused one on the same VMID; no second VM for the proxy.
      expect(s.fake.callsTo('POST', /\/clone$/)).toHaveLength(2);
      expect([...s.fake.vms.values()].filter((v) => v.config.name === r.name)).toHaveLength(1);
      // Given back, the same create adopts it.
      s.fake.allowOn('root@pam!operator', `/vms/${vmid}`, 'VM.Audit');
      expect(await p.create(r)).toBe(id);
    });
  }
});

describe('a token rotated while a create is in flight', () => {
  const TOKEN = 'root@pam!operator';
  // Rotates once, while the first clone-task poll is on its way: the file gets a new secret and
  // the old one stops working, so that poll arrives with a revoked token and gets 401.
  const rotateOnFirstPoll = (write: () => void) => {
    let done = false;
    s.fake.delayArrival('taskStatus', async () => {
      if (done) return;
      done = true;
      write();
    });
  };
  const unauthorized = () => s.fake.calls.filter((c) => c.status === 401);

  it('retries the 401 once with the new token: the create succeeds with one clone', async () => {
    const r = req('rotated');
    rotateOnFirstPoll(() => writeFileSync(s.tokenFile, `${s.fake.addToken(TOKEN)}\n`));
    const id = await s.provider().create(r);
    expect(id).toMatch(/^vms\/\d+\//);
    expect(unauthorized()).toHaveLength(1);
    expect(s.fake.callsTo('POST', /\/clone$/)).toHaveLength(1);
    expect(s.fake.vm(Number(id.split('/')[1])).running).toBe(true);
  });

  it('a 401 with the token file unchanged is not retried: Permanent AUTH_FAILED, the clone left marked for adoption and GC', async () => {
    const r = req('revoked');
    rotateOnFirstPoll(() => s.fake.revokeToken(TOKEN));
    const p = s.provider();
    const err = (await p.create(r).catch((e) => e)) as ProviderError;
    expect([err.kind, err.code]).toEqual(['Permanent', 'AUTH_FAILED']);
    expect(unauthorized()).toHaveLength(1);
    // The clone is there, carrying our name and mark from the clone call itself ...
    expect(s.fake.callsTo('POST', /\/clone$/)).toHaveLength(1);
    writeFileSync(s.tokenFile, `${s.fake.addToken(TOKEN)}\n`);
    // ... so listByTag reports it under our UID (GC collects it once its Proxy is gone) ...
    const listed = (await p.listByTag()).filter((i) => i.id.endsWith(`/${r.name}`));
    expect(listed.map((i) => i.uid)).toEqual([r.uid]);
    // ... and the repeated create adopts it instead of cloning again.
    expect(await p.create(r)).toBe(listed[0]!.id);
    expect(s.fake.callsTo('POST', /\/clone$/)).toHaveLength(1);
  });
});

describe('bounded clones', () => {
  it('50 concurrent Creates never run more clones per node than configured', async () => {
    s.fake.taskMs.qmclone = 20;
    s.fake.storageLockParallel = 2;
    const p = s.provider({ maxParallelClonesPerNode: 2 });
    const reqs = Array.from({ length: 50 }, (_, i) =>
      req(`many-${i}`, `uid-many-${i}`, i % 2 ? 'pve2' : 'pve1'),
    );
    const ids = await Promise.all(reqs.map((r) => p.create(r)));
    expect(new Set(ids).size).toBe(50);
    // The template lives on pve1, so every clone task runs there, whatever its target.
    expect(s.fake.peakClones('pve1')).toBeLessThanOrEqual(2);
    expect(p.peakClones('pve1')).toBe(2);
    expect(s.fake.peakClones('pve2')).toBe(0);
    expect((await p.listByTag()).length).toBe(50);
  }, 60_000);
});
