import { instanceName, isTransient } from '@egress-proxies/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSetup, startFakeSetup } from '../src/test/index.js';

// Reference §2: for about 10 s after a clone, /cluster/resources lists the VM with
// `status: unknown` and no name. Every operation must cope with that window.
let s: FakeSetup;
beforeAll(async () => {
  s = await startFakeSetup({ rrdDelayMs: 60_000 });
});
afterAll(async () => {
  await s.close();
});

const req = {
  name: instanceName('rrd', 'lag'),
  namespace: 'rrd',
  uid: 'uid-rrd-lag',
  port: 3128,
  placement: { machineType: 'small', image: 'debian' },
};

describe('the pvestatd window after a clone', () => {
  it('a retried Create finds its own nameless VM through the VMID probe and adopts it', async () => {
    const p = s.provider();
    const id = await p.create(req);
    expect(await p.create(req)).toBe(id);
    expect(s.fake.callsTo('POST', /clone$/)).toHaveLength(1);
  });

  it('Get is Transient (status unknown), list leaves it out, its seed is not an orphan', async () => {
    const p = s.provider();
    const id = await p.create(req);
    await expect(p.get(id)).rejects.toSatisfy(isTransient);
    expect(await p.listByTag()).toEqual([]);
    expect(await p.listSecondary()).toEqual([]);
  });

  it('once pvestatd reported, Get sees it running', async () => {
    const p = s.provider();
    const id = await p.create(req);
    s.fake.vm(Number(id.split('/')[1])).rrdAt = 0;
    expect((await p.get(id)).state).toBe('Running');
    expect((await p.listByTag()).map((i) => i.id)).toEqual([id]);
  });
});
