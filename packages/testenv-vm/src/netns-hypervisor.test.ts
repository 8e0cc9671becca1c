import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive, run, runChecked } from '@egress-proxies/testenv-libvirt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLeases } from './dnsmasq.js';
import { listNetns, netnsPids } from './netns.js';
import { BRIDGE_MAC, type NetnsHypervisor, startNetnsHypervisor } from './netns-hypervisor.js';

// Real namespaces, a real dnsmasq and a real private libvirtd; a diskless TCG domain is enough to
// see where its tap lands.

let hv: NetnsHypervisor;

beforeAll(async () => {
  hv = await startNetnsHypervisor({ subnet: '10.213.9', tag: 'unit' });
}, 120_000);

afterAll(async () => {
  await hv?.teardown();
});

const domainXml = (name: string, bridge: string) => `<domain type='qemu'>
  <name>${name}</name><memory unit='MiB'>64</memory><vcpu>1</vcpu>
  <os><type arch='x86_64' machine='q35'>hvm</type></os>
  <devices><interface type='bridge'><source bridge='${bridge}'/><model type='virtio'/></interface></devices>
</domain>`;

describe('startNetnsHypervisor', () => {
  it('puts the bridge and its address inside the namespace only', async () => {
    const inside = await runChecked('ip', ['-n', hv.netns, '-o', 'addr', 'show', 'dev', hv.bridge]);
    expect(inside).toContain(`${hv.gateway}/24`);
    const host = await run('ip', ['-o', 'addr', 'show', 'dev', hv.bridge]);
    expect(host.code).not.toBe(0);
    expect(hv.cidr).toBe('10.213.9.0/24');
  });

  it('keeps its MAC while ports with lower MACs come and go (what guests know as their gateway)', async () => {
    const ip = (...args: string[]) => runChecked('ip', ['-n', hv.netns, ...args]);
    const mac = async () => /link\/ether ([0-9a-f:]+)/.exec(await ip('link', 'show', 'dev', hv.bridge))?.[1];
    const before = await mac();
    // A port whose MAC is below the bridge's (the documentation MAC block, RFC 7042).
    await ip(
      'link',
      'add',
      'epmac0',
      'address',
      '00:00:5e:00:53:01',
      'type',
      'veth',
      'peer',
      'name',
      'epmac1',
    );
    try {
      await ip('link', 'set', 'epmac0', 'master', hv.bridge);
      expect(await mac()).toBe(before);
    } finally {
      await ip('link', 'del', 'epmac0');
    }
    expect(await mac()).toBe(before);
    expect(before).toBe(BRIDGE_MAC);
  });

  it('has no route out: only the bridge subnet, no default route', async () => {
    const routes = (await runChecked('ip', ['-n', hv.netns, '-4', 'route', 'show'])).trim().split('\n');
    expect(routes).toHaveLength(1);
    expect(routes[0]).toMatch(/^10\.213\.9\.0\/24 dev epbr0 /);
  });

  it('runs dnsmasq and libvirtd inside the namespace', async () => {
    const pids = await netnsPids(hv.netns);
    expect(pids).toContain(hv.libvirt.pid);
    expect(pids.length).toBeGreaterThanOrEqual(3); // dnsmasq, virtlogd, libvirtd
  });

  it("attaches a domain's tap to the namespace's bridge, not to anything on the host", async () => {
    const name = `ep-netns-probe-${process.pid}`;
    const xmlPath = join(hv.dir, 'probe.xml');
    writeFileSync(xmlPath, domainXml(name, hv.bridge));
    await hv.virsh('define', xmlPath);
    try {
      await hv.virsh('start', name);
      const tap = (await hv.virsh('domiflist', name)).split('\n').find((l) => l.includes(hv.bridge));
      const dev = tap?.trim().split(/\s+/)[0] ?? '';
      expect(dev).toMatch(/^vnet\d+$/);
      const link = await runChecked('ip', ['-n', hv.netns, '-o', 'link', 'show', 'dev', dev]);
      expect(link).toContain(`master ${hv.bridge}`);
      // The host's system libvirtd (if any) never learns of this domain.
      const system = await run('virsh', ['-c', 'qemu:///system', 'list', '--all', '--name']);
      expect(system.stdout.split('\n')).not.toContain(name);
      expect(existsSync(join(hv.libvirt.qemuLogDir, `${name}.log`))).toBe(true);
    } finally {
      await hv.virsh('destroy', name).catch(() => undefined);
      await hv.virsh('undefine', name);
    }
  });

  it('has a running directory pool', async () => {
    const info = await hv.virsh('pool-info', hv.pool.name);
    expect(info).toMatch(/State:\s+running/);
  });

  it('tears down everything: domains, daemons, the namespace and its directory', async () => {
    const other = await startNetnsHypervisor({ subnet: '10.213.10', tag: 'down' });
    const name = `ep-netns-left-${process.pid}`;
    const xmlPath = join(other.dir, 'left.xml');
    writeFileSync(xmlPath, domainXml(name, other.bridge));
    await other.virsh('define', xmlPath);
    await other.virsh('start', name);
    const pids = await netnsPids(other.netns);
    const left = await other.teardown();
    expect(left).toEqual([name]);
    expect(await listNetns()).not.toContain(other.netns);
    expect(existsSync(other.dir)).toBe(false);
    expect(pids.filter(isAlive)).toEqual([]);
  }, 120_000);
});

describe('parseLeases', () => {
  it('reads addresses, lower-cases MACs and drops unknown host names', () => {
    expect(
      parseLeases(
        '1700000000 52:54:00:AA:bb:cc 10.0.0.5 proxy-a *\n1700000001 52:54:00:00:00:01 10.0.0.6 * 01:ab\n\ngarbage\n',
      ),
    ).toEqual([
      { expires: 1700000000, mac: '52:54:00:aa:bb:cc', ip: '10.0.0.5', hostname: 'proxy-a' },
      { expires: 1700000001, mac: '52:54:00:00:00:01', ip: '10.0.0.6' },
    ]);
  });
});
