import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChecked, virsh } from '@egress-proxies/testenv-libvirt';
import { type DhcpLease, type Dnsmasq, startDnsmasq } from './dnsmasq.js';
import { TestEnvVmError } from './errors.js';
import { createNetns, deleteNetns, inNetns, ownedNetnsName, removeStaleNetns } from './netns.js';
import { type PrivateLibvirtd, startPrivateLibvirtd } from './private-libvirtd.js';
import { type RoutedUpstream, startRoutedUpstream } from './routed-upstream.js';

export interface NetnsHypervisor {
  /** The network namespace everything below lives in. */
  netns: string;
  bridge: string;
  /** The bridge's own address inside the namespace: where test servers listen for guests. */
  gateway: string;
  /** The guests' subnet, `a.b.c.0/24`. */
  cidr: string;
  libvirt: PrivateLibvirtd;
  /** A directory pool of the private libvirtd. */
  pool: { name: string; path: string };
  /** The env's directory (state, logs, pool); removed by teardown. */
  dir: string;
  /** With `routedUpstream`: the router and the internet with its echo server (see UPSTREAM). */
  upstream?: RoutedUpstream;
  leases(): DhcpLease[];
  /** `virsh` against the private libvirtd. */
  virsh(...args: string[]): Promise<string>;
  /** `[cmd, args]` that run `command` inside the namespace. */
  inNetns(command: string, args: readonly string[]): [string, string[]];
  /** Destroys and undefines every domain left, stops the daemons, removes the namespace and dir. */
  teardown(): Promise<string[]>;
}

export interface StartNetnsHypervisorOptions {
  /** The first three octets of the guests' /24 (default `10.213.7`). */
  subnet?: string;
  /** Short tag in the namespace's name (default `hv`). */
  tag?: string;
  /**
   * Also start a router namespace that routes the documentation block and prefix in UPSTREAM to
   * the bridge (which gets their gateway addresses), and an internet namespace with an echo
   * server behind it: what egress plans need to be seen from outside.
   */
  routedUpstream?: boolean;
  signal?: AbortSignal;
}

const BRIDGE = 'epbr0';
/**
 * The bridge's own MAC, set when it is made (locally administered). A bridge whose MAC was not
 * set takes the lowest MAC of its ports, so it changes when the guest whose tap had the lowest
 * one goes: every other guest's neighbour entry for the gateway then points at a MAC nobody
 * answers to, and their traffic is dropped until the entry expires (53 s in a reproduction).
 */
export const BRIDGE_MAC = '02:65:70:00:00:01';
const POOL = 'ep-netns';

/**
 * A hypervisor whose whole network is one namespace: a bridge with DHCP (dnsmasq) and a private
 * libvirtd + virtlogd whose guests attach to that bridge. Nothing in it routes anywhere else, so
 * guests, their addresses and everything sent to them stay inside the namespace; processes that
 * must reach the guests run inside it too (see `inNetns`).
 */
export async function startNetnsHypervisor(o: StartNetnsHypervisorOptions = {}): Promise<NetnsHypervisor> {
  const subnet = o.subnet ?? '10.213.7';
  if (!/^\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(subnet) || subnet.split('.').some((x) => Number(x) > 255)) {
    throw new TestEnvVmError(
      'INVALID_ARGUMENT',
      `subnet ${JSON.stringify(subnet)} is not three octets like 10.213.7`,
    );
  }
  for (const stale of await removeStaleNetns())
    rmSync(join(tmpdir(), `${stale}-dir`), { recursive: true, force: true });
  const netns = ownedNetnsName(o.tag ?? 'hv');
  const dir = join(tmpdir(), `${netns}-dir`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true, mode: 0o711 });
  const gateway = `${subnet}.1`;
  let dnsmasq: Dnsmasq | undefined;
  let libvirt: PrivateLibvirtd | undefined;
  let upstream: RoutedUpstream | undefined;
  const uri = () => libvirt?.uri ?? '';
  const run = (args: string[]) => virsh(args, { uri: uri() });

  const teardown = async (): Promise<string[]> => {
    const left: string[] = [];
    if (libvirt) {
      for (const name of (await run(['list', '--all', '--name']).catch(() => ''))
        .split('\n')
        .filter(Boolean)) {
        left.push(name);
        await run(['destroy', name]).catch(() => undefined);
        await run(['undefine', name, '--nvram', '--managed-save', '--snapshots-metadata']).catch(
          () => undefined,
        );
      }
      await libvirt.stop();
    }
    await upstream?.teardown();
    await dnsmasq?.stop();
    await deleteNetns(netns);
    rmSync(dir, { recursive: true, force: true });
    return left;
  };

  try {
    await createNetns(netns, o.signal);
    const ip = (...args: string[]) => runChecked('ip', ['-n', netns, ...args], { signal: o.signal });
    await ip('link', 'add', 'name', BRIDGE, 'address', BRIDGE_MAC, 'type', 'bridge');
    await ip('addr', 'add', `${gateway}/24`, 'dev', BRIDGE);
    await ip('link', 'set', BRIDGE, 'up');
    dnsmasq = await startDnsmasq({
      netns,
      bridge: BRIDGE,
      range: [`${subnet}.100`, `${subnet}.199`],
      dir,
      signal: o.signal,
    });
    libvirt = await startPrivateLibvirtd({ netns, dir: join(dir, 'libvirt'), signal: o.signal });
    const poolPath = join(dir, 'pool');
    mkdirSync(poolPath, { mode: 0o711 });
    await run(['pool-define-as', POOL, 'dir', '--target', poolPath]);
    await run(['pool-start', POOL]);
    if (o.routedUpstream) {
      upstream = await startRoutedUpstream({
        hypervisorNetns: netns,
        bridge: BRIDGE,
        routerNetns: ownedNetnsName(`${o.tag ?? 'hv'}up`),
        internetNetns: ownedNetnsName(`${o.tag ?? 'hv'}inet`),
        dir,
        ...(o.signal ? { signal: o.signal } : {}),
      });
    }
    const started = dnsmasq;
    return {
      netns,
      bridge: BRIDGE,
      gateway,
      cidr: `${subnet}.0/24`,
      libvirt,
      pool: { name: POOL, path: poolPath },
      dir,
      ...(upstream ? { upstream } : {}),
      leases: () => started.leases(),
      virsh: (...args) => run(args),
      inNetns: (command, args) => inNetns(netns, command, args),
      teardown,
    };
  } catch (e) {
    await teardown().catch(() => undefined);
    throw e;
  }
}
