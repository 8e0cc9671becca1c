import { instanceName, type ProviderError } from '@egress-proxies/contract';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSetup, startFakeSetup } from '../src/test/index.js';
import { seedNetworkConfig } from './seed-network-config.js';

let s: FakeSetup;
beforeEach(async () => {
  s = await startFakeSetup({ nodes: ['pve1'] });
});
afterEach(async () => {
  await s.close();
});

/** A /29 leaves six hosts; the gateway and one exclusion leave four to allocate. */
const PLANNED = {
  egressPlans: {
    lab: {
      ipv4: { ranges: ['203.0.113.8/29'], gateway: '203.0.113.9' },
      ipv6: { prefix: '2001:db8:1::/64', gateway: '2001:db8:1::1' },
      nameservers: ['192.0.2.53'],
      exclude: ['203.0.113.10'],
    },
  },
  egressPlan: 'lab',
};

const req = (n: string) => ({
  name: instanceName('egress', n),
  namespace: 'egress',
  uid: `uid-${n}`,
  port: 3128,
  placement: { zone: 'pve1', machineType: 'small', image: 'debian' },
});
const vmidOf = (id: string) => Number(id.split('/')[1]);

/** The network-config file inside a VM's seed ISO, parsed. */
function seedNetwork(name: string): {
  ethernets: Record<string, { match: { macaddress: string }; addresses: string[] }>;
} {
  const text = seedNetworkConfig(s.fake, 'pve1', name);
  if (text === undefined) throw new Error(`the seed of ${name} has no network-config`);
  return JSON.parse(text);
}

describe('egress plans', () => {
  it('concurrent creates get distinct addresses, reported by get and listByTag', async () => {
    const p = s.provider(PLANNED);
    expect(p.profile.egress).toBe('planned');
    const ids = await Promise.all(['a', 'b', 'c', 'd'].map((n) => p.create(req(n))));
    const got = await Promise.all(ids.map((id) => p.get(id)));
    const v4 = got.map((i) => i.egress?.ipv4);
    const v6 = got.map((i) => i.egress?.ipv6);
    expect(new Set(v4).size).toBe(4);
    expect(new Set(v6).size).toBe(4);
    for (const a of v4) expect(['203.0.113.11', '203.0.113.12', '203.0.113.13', '203.0.113.14']).toContain(a);
    const listed = await p.listByTag();
    expect(Object.fromEntries(listed.map((i) => [i.id, i.egress]))).toEqual(
      Object.fromEntries(got.map((i) => [i.id, i.egress])),
    );
  });

  it('an exhausted plan is QuotaExceeded naming the plan, its size and the holders', async () => {
    const p = s.provider(PLANNED);
    for (const n of ['a', 'b', 'c', 'd']) await p.create(req(n));
    const err = (await p.create(req('e')).catch((e) => e)) as ProviderError;
    expect(err.kind).toBe('QuotaExceeded');
    expect(err.message).toContain('"lab"');
    expect(err.message).toContain('all 4 are held');
    for (const n of ['a', 'b', 'c', 'd']) expect(err.message).toContain(req(n).name);
    // Nothing was cloned for the refused create.
    expect(s.fake.callsTo('POST', /clone$/)).toHaveLength(4);
  });

  it('an address is free again once its VM is deleted', async () => {
    const p = s.provider(PLANNED);
    const ids = [];
    for (const n of ['a', 'b', 'c', 'd']) ids.push(await p.create(req(n)));
    const freed = (await p.get(ids[1]!)).egress?.ipv4;
    await p.delete(ids[1]!);
    const id = await p.create(req('e'));
    expect((await p.get(id)).egress?.ipv4).toBe(freed);
  });

  it('a restarted provider reads the allocation back from the mark and never hands it out again', async () => {
    // One address per family: a second instance can only be refused if the first one's mark is read.
    const single = {
      egressPlans: {
        one: {
          ipv4: { ranges: ['203.0.113.11'], prefixLength: 29, gateway: '203.0.113.9' },
          ipv6: { prefix: '2001:db8:1::/64', gateway: '2001:db8:1::1' },
        },
      },
      egressPlan: 'one',
    };
    const first = s.provider(single);
    const id = await first.create(req('a'));
    const before = (await first.get(id)).egress;
    expect(before?.ipv4).toBe('203.0.113.11');
    await first.close();
    const second = s.provider(single);
    expect((await second.get(id)).egress).toEqual(before);
    const err = (await second.create(req('b')).catch((e) => e)) as ProviderError;
    expect(err.kind).toBe('QuotaExceeded');
    expect(err.message).toContain(req('a').name);
  });

  it("the seed's network-config carries the addresses on the MAC pinned in net0", async () => {
    const p = s.provider(PLANNED);
    const id = await p.create(req('a'));
    const inst = await p.get(id);
    const net0 = String(s.fake.vm(vmidOf(id)).config.net0);
    const mac = /^\w+=([0-9A-F:]{17})/i.exec(net0)?.[1]?.toLowerCase();
    const nc = seedNetwork(req('a').name);
    expect(nc.ethernets.eth0?.match.macaddress).toBe(mac);
    expect(nc.ethernets.eth0?.addresses).toEqual([`${inst.egress?.ipv4}/29`, `${inst.egress?.ipv6}/64`]);
  });

  it('a create retried after a crash between clone and config keeps one address and one VM', async () => {
    const p = s.provider(PLANNED);
    // Two holders first, so the retry's address is not merely the name's first pick.
    await p.create(req('x'));
    await p.create(req('y'));
    s.fake.failStep('uploadIso', 1, 'internal');
    await expect(p.create(req('a'))).rejects.toThrow();
    const marked = [...s.fake.vms.values()].filter((v) => v.config.name === req('a').name);
    expect(marked).toHaveLength(1);
    const recorded = /proxy-operator-egress-ipv4=(\S+)/.exec(String(marked[0]!.config.description))?.[1];
    expect(recorded).toBeDefined();
    // Other creates take their turn in between: the marked (not yet tagged) clone's address
    // stays held, so of the four addresses one is left for b and none for c.
    const between = (await p.get(await p.create(req('b')))).egress?.ipv4;
    expect(between).not.toBe(recorded);
    expect(((await p.create(req('c')).catch((e) => e)) as ProviderError).kind).toBe('QuotaExceeded');
    const id = await p.create(req('a'));
    expect([...s.fake.vms.values()].filter((v) => v.config.name === req('a').name)).toHaveLength(1);
    expect((await p.get(id)).egress?.ipv4).toBe(recorded);
    expect(seedNetwork(req('a').name).ethernets.eth0?.addresses[0]).toBe(`${recorded}/29`);
  });

  it("a create cut off while PVE still clones keeps its address from other names until the clone's mark holds it", async () => {
    const p = s.provider(PLANNED, { budgets: { pollMs: 20, cloneMs: 300 } });
    for (const n of ['x', 'y', 'z']) await p.create(req(n));
    // From here a clone runs 1.5 s on PVE and the create waits 0.3 s for it: the call gives up,
    // the clone does not, and it writes the last address into its mark when it ends.
    s.fake.taskMs.qmclone = 1_500;
    const cut = (await p.create(req('a')).catch((e) => e)) as ProviderError;
    expect(cut.kind).toBe('Transient');
    const other = (await p.create(req('b')).catch((e) => e)) as ProviderError;
    expect(other.kind).toBe('QuotaExceeded');
    await new Promise((r) => setTimeout(r, 1_600));
    s.fake.taskMs.qmclone = 0;
    // The retry adopts the finished clone with its recorded address; no two VMs share one.
    const id = await p.create(req('a'));
    expect((await p.get(id)).egress?.ipv4).toBeDefined();
    const v4 = (await p.listByTag()).map((i) => i.egress?.ipv4);
    expect(v4).toHaveLength(4);
    expect(new Set(v4).size).toBe(4);
    expect([...s.fake.vms.values()].filter((v) => v.config.name === req('a').name)).toHaveLength(1);
  });

  it('a crash before the clone leaves nothing allocated', async () => {
    const p = s.provider(PLANNED);
    s.fake.failStep('cloneVm', 1, 'internal');
    await expect(p.create(req('a'))).rejects.toThrow();
    expect([...s.fake.vms.values()].filter((v) => v.config.name === req('a').name)).toHaveLength(0);
    for (const n of ['b', 'c', 'd', 'e']) await p.create(req(n));
  });

  it('without a plan the egress is shared and nothing is pinned', async () => {
    const p = s.provider();
    expect(p.profile.egress).toBe('shared');
    const id = await p.create(req('a'));
    expect((await p.get(id)).egress).toBeUndefined();
    expect(String(s.fake.vm(vmidOf(id)).config.description)).not.toContain('egress');
  });
});
