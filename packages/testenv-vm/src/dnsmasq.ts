import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive, sleep, terminate } from '@egress-proxies/testenv-libvirt';
import { TestEnvVmError } from './errors.js';
import { spawnLogged } from './logged-child.js';
import { inNetns } from './netns.js';

export interface DhcpLease {
  expires: number;
  mac: string;
  ip: string;
  hostname?: string;
}

export interface Dnsmasq {
  pid: number;
  leasesPath: string;
  logPath: string;
  leases(): DhcpLease[];
  stop(): Promise<void>;
}

export interface StartDnsmasqOptions {
  netns: string;
  bridge: string;
  /** First and last address handed out. */
  range: [string, string];
  dir: string;
  signal?: AbortSignal;
}

/** Parses dnsmasq's lease file: `<expiry> <mac> <ip> <hostname|*> <client id|*>` per line. */
export function parseLeases(text: string): DhcpLease[] {
  const out: DhcpLease[] = [];
  for (const line of text.split('\n')) {
    const [expires, mac, ip, hostname] = line.trim().split(/\s+/);
    if (!expires || !mac || !ip || !/^\d+$/.test(expires)) continue;
    out.push({
      expires: Number(expires),
      mac: mac.toLowerCase(),
      ip,
      ...(hostname && hostname !== '*' ? { hostname } : {}),
    });
  }
  return out;
}

/**
 * DHCP only (its DNS is off) on the bridge inside the namespace, so guests get addresses the
 * way they would on a real host's LAN without anything leaving the namespace.
 */
export async function startDnsmasq(o: StartDnsmasqOptions): Promise<Dnsmasq> {
  const leasesPath = join(o.dir, 'dnsmasq.leases');
  const logPath = join(o.dir, 'dnsmasq.log');
  const [cmd, args] = inNetns(o.netns, 'dnsmasq', [
    '--keep-in-foreground',
    '--conf-file=/dev/null',
    '--port=0',
    '--bind-interfaces',
    `--interface=${o.bridge}`,
    '--except-interface=lo',
    `--dhcp-range=${o.range[0]},${o.range[1]},255.255.255.0,12h`,
    '--dhcp-authoritative',
    `--dhcp-leasefile=${leasesPath}`,
    '--user=root',
    `--log-facility=${logPath}`,
    '--log-dhcp',
  ]);
  const { child, exited } = spawnLogged(cmd, args, join(o.dir, 'dnsmasq.out'));
  const pid = child.pid;
  // dnsmasq opens its log and binds at once; a bad option or a busy port ends it within this wait.
  const deadline = Date.now() + 5_000;
  while (!existsSync(logPath) && exited() === undefined && Date.now() < deadline) await sleep(50, o.signal);
  await sleep(300, o.signal);
  if (pid === undefined || exited() !== undefined || !isAlive(pid)) {
    const out = [join(o.dir, 'dnsmasq.out'), logPath]
      .map((p) => (existsSync(p) ? readFileSync(p, 'utf8').trim() : ''))
      .join('\n')
      .slice(-2000);
    throw new TestEnvVmError(
      'NETNS_FAILED',
      `dnsmasq did not start in ${o.netns} (${exited() ?? 'not running'}): ${out}`,
    );
  }
  return {
    pid,
    leasesPath,
    logPath,
    leases: () => (existsSync(leasesPath) ? parseLeases(readFileSync(leasesPath, 'utf8')) : []),
    stop: async () => {
      await terminate([pid], 5_000);
    },
  };
}
