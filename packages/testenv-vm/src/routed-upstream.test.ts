import { run, runChecked } from '@egress-proxies/testenv-libvirt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNetns, deleteNetns, inNetns, listNetns, ownedNetnsName } from './netns.js';
import { type NetnsHypervisor, startNetnsHypervisor } from './netns-hypervisor.js';
import { echoCallersIn, UPSTREAM } from './routed-upstream.js';

// Real namespaces and veths; a "guest" is a namespace on the bridge with a static address, as a
// VM's static network config would set it, so the routing is proven without booting anything.

let hv: NetnsHypervisor;
const guest = ownedNetnsName('rupguest');

beforeAll(async () => {
  hv = await startNetnsHypervisor({ subnet: '10.213.10', tag: 'rup', routedUpstream: true });
  await createNetns(guest);
  const ip = (ns: string, ...a: string[]) => runChecked('ip', ['-n', ns, ...a]);
  await ip(hv.netns, 'link', 'add', 'epg0', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', guest);
  await ip(hv.netns, 'link', 'set', 'epg0', 'master', hv.bridge);
  await ip(hv.netns, 'link', 'set', 'epg0', 'up');
  await ip(guest, 'addr', 'add', '203.0.113.5/28', 'dev', 'eth0');
  await ip(guest, 'addr', 'add', '2001:db8:e2e::5/64', 'dev', 'eth0', 'nodad');
  await ip(guest, 'addr', 'add', '10.213.10.50/24', 'dev', 'eth0');
  await ip(guest, 'link', 'set', 'eth0', 'up');
  await ip(guest, 'route', 'add', 'default', 'via', UPSTREAM.ipv4Gateway);
  await ip(guest, '-6', 'route', 'add', 'default', 'via', UPSTREAM.ipv6Gateway);
}, 120_000);

afterAll(async () => {
  await deleteNetns(guest);
  await hv?.teardown();
});

const curlFrom = async (source: string, url: string) => {
  const [cmd, args] = inNetns(guest, 'curl', ['-sS', '--max-time', '5', '--interface', source, url]);
  return run(cmd, args);
};

describe('startNetnsHypervisor with a routed upstream', () => {
  it('routes the planned block and prefix out to the echo server, which sees the source untranslated', async () => {
    const up = hv.upstream!;
    const v4 = await curlFrom('203.0.113.5', up.echoUrl4);
    expect(v4.stderr).toBe('');
    expect(JSON.parse(v4.stdout)).toEqual({ ip: '203.0.113.5' });
    const v6 = await curlFrom('2001:db8:e2e::5', up.echoUrl6);
    expect(JSON.parse(v6.stdout)).toEqual({ ip: '2001:db8:e2e::5' });
    expect(up.echoCallers()).toEqual(['203.0.113.5', '2001:db8:e2e::5']);
  });

  it('does not route the DHCP subnet: a guest leaving from it gets no answer (a misrouted egress)', async () => {
    const r = await curlFrom('10.213.10.50', hv.upstream!.echoUrl4);
    expect(r.code).not.toBe(0);
    expect(hv.upstream!.echoCallers()).not.toContain('10.213.10.50');
  });

  it('holds the documented routes on the router', async () => {
    const v4 = await runChecked('ip', ['-n', hv.upstream!.routerNetns, 'route', 'show', UPSTREAM.ipv4Block]);
    expect(v4.trim()).toBe(`${UPSTREAM.ipv4Block} via ${UPSTREAM.uplink4.hypervisor} dev epdown0`);
    const v6 = await runChecked('ip', [
      '-n',
      hv.upstream!.routerNetns,
      '-6',
      'route',
      'show',
      UPSTREAM.ipv6Prefix,
    ]);
    expect(v6).toContain(`${UPSTREAM.ipv6Prefix} via ${UPSTREAM.uplink6.hypervisor} dev epdown0`);
    expect(hv.upstream!.routerRoutes).toEqual([
      '203.0.113.0/28 via 192.0.2.2',
      '2001:db8:e2e::/64 via 2001:db8:ff00::2',
    ]);
  });

  it('reads callers from the echo log', () => {
    expect(echoCallersIn('listening 8080\ncaller 203.0.113.5\ncaller 2001:db8:e2e::5\n')).toEqual([
      '203.0.113.5',
      '2001:db8:e2e::5',
    ]);
  });
});

describe('teardown of the routed upstream', () => {
  it('removes the router and internet namespaces with the hypervisor', async () => {
    const names = [hv.netns, hv.upstream!.routerNetns, hv.upstream!.internetNetns];
    expect((await listNetns()).filter((n) => names.includes(n))).toHaveLength(3);
    await hv.teardown();
    expect((await listNetns()).filter((n) => names.includes(n))).toEqual([]);
  });
});
