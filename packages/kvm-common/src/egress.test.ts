import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CreateRequest, ErrorCode, ErrorKind, type ProviderError } from '@egress-proxies/contract';
import { afterEach, describe, expect, it } from 'vitest';
// The nocloud package's own independent ISO reader (test-only there).
import { jolietFiles } from '../../nocloud/test/helpers/iso-reader.js';
import { type KvmConfigInput, parseKvmConfig } from './config.js';
import { seedName } from './names.js';
import { createKvmFamilyProvider, type KvmFamilyProvider } from './provider.js';
import { FakeLibvirt } from './test/fake-libvirt.js';
import { testFlavour } from './test/flavour.js';
import { memoryImage } from './test/harness.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A /29 routed to alpha: .9 is the gateway, so .10 to .14 are the five addresses to hand out. */
const OFFICE = {
  ipv4: { ranges: ['203.0.113.8/29'], gateway: '203.0.113.9' },
  ipv6: { prefix: '2001:db8:7::/64', gateway: '2001:db8:7::1' },
  nameservers: ['192.0.2.53'],
};

function config(over: Partial<KvmConfigInput> = {}, plan: string | null = 'office'): KvmConfigInput {
  const dir = mkdtempSync(join(tmpdir(), 'kvm-egress-test-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'key'), 'KEY-MATERIAL');
  return {
    sshKeyFile: join(dir, 'key'),
    insecureIgnoreHostKey: true,
    diskSizeGb: 2,
    images: { deb: { url: 'http://images.invalid/deb.qcow2' } },
    machineTypes: { small: { vcpus: 1, memoryMiB: 512 } },
    egressPlans: { office: OFFICE },
    hosts: [
      {
        name: 'alpha',
        address: 'alpha:22',
        user: 'virt',
        bridge: 'br0',
        ...(plan ? { egressPlan: plan } : {}),
      },
    ],
    ...over,
  };
}

const newFake = () => new FakeLibvirt({ hosts: [{ name: 'alpha', pool: 'default' }] });

function provider(fake: FakeLibvirt, cfg: KvmConfigInput = config()): KvmFamilyProvider {
  return createKvmFamilyProvider(testFlavour, cfg, {
    name: 'p1',
    dialer: fake.dialer(),
    fetcher: memoryImage(randomBytes(4096)),
    pollIntervalMs: 1,
    startTimeoutMs: 1_000,
  });
}

const request = (name: string): CreateRequest => ({
  name,
  namespace: 'ns',
  uid: randomUUID(),
  port: 3128,
  cloudInit: '#cloud-config\n',
  placement: { zone: 'alpha', machineType: 'small', image: 'deb' },
});

/** The seed's network-config as the guest would read it (JSON, a YAML document), and the MAC pinned in the domain XML. */
function delivered(fake: FakeLibvirt, name: string) {
  const iso = fake.volume('alpha', 'default', seedName(name)).data!;
  const files = jolietFiles(iso);
  const raw = files.get('network-config');
  const xml = fake.domain('alpha', name).xml;
  return {
    networkConfig: raw ? JSON.parse(Buffer.from(raw).toString('utf8')) : undefined,
    mac: /<interface type="bridge">[\s\S]*?<mac address="([^"]+)"\/>[\s\S]*?<\/interface>/.exec(xml)?.[1],
  };
}

const rejection = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as ProviderError,
  );

describe('egress plans on a kvm host', () => {
  it('concurrent creates get distinct addresses, delivered in the seed and matched to the NIC', async () => {
    const fake = newFake();
    const p = provider(fake);
    expect(p.profile.egress).toBe('planned');
    const names = ['proxy-a', 'proxy-b', 'proxy-c', 'proxy-d', 'proxy-e'];
    await Promise.all(names.map((n) => p.create(request(n))));
    const listed = await p.listByTag();
    const v4 = listed.map((i) => i.egress?.ipv4);
    const v6 = listed.map((i) => i.egress?.ipv6);
    // Five addresses, five instances: every one used exactly once.
    expect(new Set(v4)).toEqual(
      new Set(['203.0.113.10', '203.0.113.11', '203.0.113.12', '203.0.113.13', '203.0.113.14']),
    );
    expect(new Set(v6).size).toBe(5);
    for (const name of names) {
      const got = await p.get(`hosts/alpha/domains/${name}`);
      const { networkConfig, mac } = delivered(fake, name);
      expect(mac).toMatch(/^52:54:00(:[0-9a-f]{2}){3}$/);
      const eth0 = networkConfig.ethernets.eth0;
      expect(eth0.match).toEqual({ macaddress: mac });
      expect(eth0.addresses).toEqual([`${got.egress!.ipv4}/29`, `${got.egress!.ipv6}/64`]);
      expect([eth0.gateway4, eth0.gateway6]).toEqual(['203.0.113.9', '2001:db8:7::1']);
      expect(eth0.nameservers).toEqual({ addresses: ['192.0.2.53'] });
    }
    await p.close();
  });

  it('an exhausted plan is QuotaExceeded naming the plan, its size and the holders', async () => {
    const fake = newFake();
    const p = provider(fake);
    const names = ['proxy-a', 'proxy-b', 'proxy-c', 'proxy-d', 'proxy-e'];
    for (const n of names) await p.create(request(n));
    const err = await rejection(p.create(request('proxy-f')));
    expect(err?.kind).toBe(ErrorKind.QuotaExceeded);
    expect(err?.code).toBe(ErrorCode.QuotaExceeded);
    expect(err?.message).toContain(
      'egress plan "office" has no free IPv4 address: all 5 are held (by proxy-a, proxy-b, proxy-c, proxy-d, proxy-e)',
    );
    // Nothing of the refused instance was defined.
    expect(fake.host('alpha').domains.has('proxy-f')).toBe(false);
    await p.close();
  });

  it('a deleted instance frees its address; a restarted provider reads the allocations back', async () => {
    const fake = newFake();
    const p = provider(fake);
    const names = ['proxy-a', 'proxy-b', 'proxy-c', 'proxy-d', 'proxy-e'];
    for (const n of names) await p.create(request(n));
    const before = await p.get('hosts/alpha/domains/proxy-c');
    await p.delete('hosts/alpha/domains/proxy-c');
    await p.close();
    // A new provider object with no state but the backend's.
    const q = provider(fake);
    for (const n of ['proxy-a', 'proxy-b']) {
      expect((await q.get(`hosts/alpha/domains/${n}`)).egress).toEqual(
        (await q.listByTag()).find((i) => i.id.endsWith(`/${n}`))?.egress,
      );
    }
    await q.create(request('proxy-f'));
    const after = await q.get('hosts/alpha/domains/proxy-f');
    expect(after.egress?.ipv4).toBe(before.egress?.ipv4);
    const all = (await q.listByTag()).map((i) => i.egress?.ipv4);
    expect(new Set(all).size).toBe(all.length);
    await q.close();
  });

  it('a create retried after a failed define keeps nothing allocated, and an adopted one keeps its address', async () => {
    const fake = newFake();
    const p = provider(fake);
    const req = request('proxy-a');
    fake.failNext('domainDefineXML', 1, 'internal');
    expect(await rejection(p.create(req))).toBeDefined();
    expect((await p.listByTag()).length).toBe(0);
    await p.create(req);
    const first = await p.get('hosts/alpha/domains/proxy-a');
    expect(first.egress?.ipv4).toMatch(/^203\.0\.113\.1[0-4]$/);
    expect(first.egress?.ipv6).toMatch(/^2001:db8:7:/);
    const mark = fake.domain('alpha', 'proxy-a').metadata.get(testFlavour.namespace);
    // The same request again adopts the domain: same mark, same address, no second define.
    fake.clearCalls();
    await p.create(req);
    expect(fake.calls().some((c) => c.step === 'domainDefineXML')).toBe(false);
    expect(fake.domain('alpha', 'proxy-a').metadata.get(testFlavour.namespace)).toBe(mark);
    expect((await p.get('hosts/alpha/domains/proxy-a')).egress).toEqual(first.egress);
    await p.close();
  });

  it('without a plan: DHCP as before, no MAC pinned, no egress reported, the profile says shared', async () => {
    const fake = newFake();
    const p = provider(fake, config({ egressPlans: {} }, null));
    expect(p.profile.egress).toBe('shared');
    await p.create(request('proxy-a'));
    expect(delivered(fake, 'proxy-a')).toEqual({ networkConfig: undefined, mac: undefined });
    expect((await p.get('hosts/alpha/domains/proxy-a')).egress).toBeUndefined();
    await p.close();
  });
});

describe('egress plan config', () => {
  const lines = (cfg: KvmConfigInput) => {
    try {
      parseKvmConfig('kvm2', cfg);
      return [];
    } catch (err) {
      expect((err as ProviderError).code).toBe(ErrorCode.InvalidConfig);
      return (err as ProviderError).reason.split('\n').slice(1);
    }
  };

  it('names an unknown plan with a did-you-mean, and a plan two hosts share', () => {
    expect(lines(config({}, 'ofice'))).toEqual([
      'kvm2.hosts[0].egressPlan: egress plan "ofice" is not in egressPlans (configured: office); did you mean "office"?',
    ]);
    const two = config();
    two.hosts = [
      { name: 'alpha', address: 'alpha:22', user: 'virt', bridge: 'br0', egressPlan: 'office' },
      { name: 'beta', address: 'beta:22', user: 'virt', bridge: 'br0', egressPlan: 'office' },
    ];
    expect(lines(two)).toEqual([
      'kvm2.hosts[1].egressPlan: egress plan "office" is already used by host "alpha"; a plan\'s block is routed to one host, so give each host its own plan',
    ]);
  });

  it('reports a bad plan under its path', () => {
    expect(
      lines(config({ egressPlans: { office: { ipv4: { ranges: ['203.0.113.8/29'], gateway: 'gw' } } } })),
    ).toEqual(['kvm2.egressPlans.office.ipv4.gateway: "gw" is not an IPv4 address']);
  });
});
