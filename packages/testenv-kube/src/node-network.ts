import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireFileLock, type HeldLock, run, runChecked } from '@egress-proxies/testenv-libvirt';
import { createNetns, deleteNetns, ownedNetnsName, removeStaleNetns } from '@egress-proxies/testenv-vm';

/** How many test nodes may run on one machine at once (one /30 link each). */
export const NODE_SLOTS = 16;

export interface NodeNetwork {
  /** The node's network namespace: its daemons, its Pods' bridge, its iptables. */
  netns: string;
  slot: number;
  /** The node's address (inside the namespace): the apiserver and kubelet listen here. */
  nodeIP: string;
  /** This host's end of the link: test servers the Pods should reach listen here. */
  hostIP: string;
  /** The host-side interface of the link. */
  hostLink: string;
  /** Removes the namespace (and with it the link) and frees the slot. Idempotent. */
  remove(): Promise<void>;
}

/** The link addresses of a slot: a /30 of 10.253.<slot>.0, host .1, node .2. */
export function slotAddresses(slot: number): { hostIP: string; nodeIP: string; hostLink: string } {
  if (!Number.isInteger(slot) || slot < 0 || slot >= NODE_SLOTS)
    throw new Error(`node slot must be an integer in 0..${NODE_SLOTS - 1}, got ${slot}`);
  return { hostIP: `10.253.${slot}.1`, nodeIP: `10.253.${slot}.2`, hostLink: `ep-kube${slot}` };
}

function slotDir(): string {
  return join(tmpdir(), 'egress-testenv-kube-slots');
}

async function takeSlot(signal?: AbortSignal): Promise<{ slot: number; lock: HeldLock }> {
  const dir = slotDir();
  mkdirSync(dir, { recursive: true, mode: 0o1777 });
  for (let slot = 0; slot < NODE_SLOTS; slot++) {
    try {
      const lock = await acquireFileLock(join(dir, `slot-${slot}.lock`), { timeoutMs: 200, signal });
      return { slot, lock };
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      if ((e as { code?: string }).code !== 'LOCK_TIMEOUT') throw e;
    }
  }
  throw new Error(`all ${NODE_SLOTS} test-node slots in ${dir} are taken: too many clusters at once`);
}

/**
 * A network namespace for one node, joined to this host by a veth pair on a /30 of its own.
 * The namespace has no default route: its Pods reach each other, the node and the host's end of
 * the link, nothing else. A slot (a flock(2) lock, freed by the kernel if this process dies)
 * keeps concurrent clusters on different links.
 */
export async function createNodeNetwork(o: { signal?: AbortSignal } = {}): Promise<NodeNetwork> {
  if (typeof process.getuid === 'function' && process.getuid() !== 0)
    throw new Error(
      'a test node needs root (network namespaces, containerd, cgroups); run the suite as root',
    );
  await removeStaleNetns();
  const { slot, lock } = await takeSlot(o.signal);
  const { hostIP, nodeIP, hostLink } = slotAddresses(slot);
  const netns = ownedNetnsName(`kube${slot}`);
  const ip = (...args: string[]) => runChecked('ip', args, { signal: o.signal });
  const remove = async () => {
    await deleteNetns(netns);
    // Normally gone with the namespace; a link left by a killed run holding this slot is ours.
    await run('ip', ['link', 'delete', hostLink]);
    await lock.release();
  };
  try {
    // A killed run that held this slot may have left its host end behind.
    await run('ip', ['link', 'delete', hostLink]);
    const taken = await run('ip', ['-4', '-o', 'addr', 'show', 'to', `10.253.${slot}.0/30`]);
    if (taken.stdout.trim())
      throw new Error(`10.253.${slot}.0/30 is already in use on this host: ${taken.stdout.trim()}`);
    await createNetns(netns, o.signal);
    const peer = `ep-kube${slot}n`;
    await ip('link', 'add', hostLink, 'type', 'veth', 'peer', 'name', peer);
    await ip('link', 'set', peer, 'netns', netns);
    await ip('-n', netns, 'link', 'set', peer, 'name', 'eth0');
    await ip('addr', 'add', `${hostIP}/30`, 'dev', hostLink);
    await ip('link', 'set', hostLink, 'up');
    await ip('-n', netns, 'addr', 'add', `${nodeIP}/30`, 'dev', 'eth0');
    await ip('-n', netns, 'link', 'set', 'eth0', 'up');
    // Pods' traffic to Services goes through iptables on the bridge; the node routes between them.
    for (const [key, value] of [
      ['net.ipv4.ip_forward', '1'],
      ['net.bridge.bridge-nf-call-iptables', '1'],
      ['net.ipv4.conf.all.route_localnet', '1'],
    ])
      await runChecked('ip', ['netns', 'exec', netns, 'sysctl', '-q', '-w', `${key}=${value}`]);
    return { netns, slot, nodeIP, hostIP, hostLink, remove };
  } catch (e) {
    await remove().catch(() => undefined);
    throw new Error(`cannot set up the test node's network namespace: ${(e as Error).message}`, {
      cause: e,
    });
  }
}
