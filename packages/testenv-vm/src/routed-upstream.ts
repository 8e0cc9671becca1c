import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive, runChecked, sleep } from '@egress-proxies/testenv-libvirt';
import { TestEnvVmError } from './errors.js';
import { spawnLogged } from './logged-child.js';
import { createNetns, deleteNetns, inNetns } from './netns.js';

/**
 * The addresses of the routed upstream, all from the documentation ranges (RFC 5737, RFC 3849),
 * so nothing here can clash with a real network. The hypervisor's bridge is the planned block's
 * gateway; the router routes the block to the hypervisor's uplink, as an ISP routes a customer's
 * block to the customer's router.
 */
export const UPSTREAM = {
  /** The block routed to the bridge (the egress plan's IPv4 ranges); `.1` is on the bridge. */
  ipv4Block: '203.0.113.0/28',
  ipv4Gateway: '203.0.113.1',
  /** The prefix routed to the bridge (the egress plan's IPv6 prefix); `::1` is on the bridge. */
  ipv6Prefix: '2001:db8:e2e::/64',
  ipv6Gateway: '2001:db8:e2e::1',
  /** The link between the hypervisor (`.2`, `::2`) and the router (`.1`, `::1`). */
  uplink4: { router: '192.0.2.1', hypervisor: '192.0.2.2', prefixLength: 30 },
  uplink6: { router: '2001:db8:ff00::1', hypervisor: '2001:db8:ff00::2', prefixLength: 64 },
  /** The "internet": the router (`.1`, `::1`) and the echo server's host (`.2`, `::2`). */
  internet4: { net: '198.51.100.0/24', router: '198.51.100.1', echo: '198.51.100.2', prefixLength: 24 },
  internet6: {
    net: '2001:db8:ffff::/64',
    router: '2001:db8:ffff::1',
    echo: '2001:db8:ffff::2',
    prefixLength: 64,
  },
  echoPort: 8080,
} as const;

export interface RoutedUpstream {
  /** The router's namespace and the internet's (echo server) namespace. */
  routerNetns: string;
  internetNetns: string;
  /** The echo server in the internet namespace: it answers `{"ip": <source it saw>}`. */
  echoUrl4: string;
  echoUrl6: string;
  /** Every source address the echo server saw, in order (read from its log). */
  echoCallers(): string[];
  /** The echo server's log: `caller <address>` per request. */
  echoLogPath: string;
  /** The routes the router holds towards the hypervisor, as `ip route add` arguments. */
  routerRoutes: string[];
  teardown(): Promise<void>;
}

export interface StartRoutedUpstreamOptions {
  /** The hypervisor's namespace and bridge (from startNetnsHypervisor). */
  hypervisorNetns: string;
  bridge: string;
  /** Names for the two namespaces (owned names, see ownedNetnsName). */
  routerNetns: string;
  internetNetns: string;
  /** Where the echo server's log goes (removed with the hypervisor's directory). */
  dir: string;
  signal?: AbortSignal;
}

/** The echo server, run by node in the internet namespace: one line per caller on stdout. */
const ECHO_SCRIPT = `
const http = require('node:http');
const port = Number(process.argv[1]);
const server = http.createServer((req, res) => {
  const ip = (req.socket.remoteAddress || '').replace(/^::ffff:/, '');
  process.stdout.write('caller ' + ip + '\\n');
  res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
  res.end(JSON.stringify({ ip }) + '\\n');
});
server.listen({ port, host: '::', ipv6Only: false }, () => process.stdout.write('listening ' + port + '\\n'));
`;

/**
 * A router namespace that routes the documentation block and prefix to the hypervisor's bridge,
 * and an "internet" namespace behind it with an echo server. Nothing is translated anywhere, so
 * the echo server sees the address a guest left from: a guest on the planned block gets an
 * answer, a guest on the DHCP subnet does not (the router has no route back to it), which is the
 * misrouted upstream a real plan can suffer.
 */
export async function startRoutedUpstream(o: StartRoutedUpstreamOptions): Promise<RoutedUpstream> {
  const U = UPSTREAM;
  const routerRoutes = [
    `${U.ipv4Block} via ${U.uplink4.hypervisor}`,
    `${U.ipv6Prefix} via ${U.uplink6.hypervisor}`,
  ];
  let echoPid: number | undefined;
  const teardown = async () => {
    // Deleting a namespace ends what runs in it (the echo server) and its veth pairs with it.
    await deleteNetns(o.internetNetns);
    await deleteNetns(o.routerNetns);
    // The hypervisor's end of the uplink goes with the router's; the bridge's extra addresses
    // go with the hypervisor's namespace.
  };
  const ip = (ns: string, ...args: string[]) => runChecked('ip', ['-n', ns, ...args], { signal: o.signal });
  const sysctl = (ns: string, key: string) => {
    const [cmd, args] = inNetns(ns, 'sysctl', ['-q', '-w', `${key}=1`]);
    return runChecked(cmd, args, { signal: o.signal });
  };
  try {
    await createNetns(o.routerNetns, o.signal);
    await createNetns(o.internetNetns, o.signal);
    const hv = o.hypervisorNetns;
    // hypervisor <-> router
    await ip(hv, 'link', 'add', 'epup0', 'type', 'veth', 'peer', 'name', 'epdown0', 'netns', o.routerNetns);
    // router <-> internet
    await ip(
      o.routerNetns,
      'link',
      'add',
      'epnet0',
      'type',
      'veth',
      'peer',
      'name',
      'epnet1',
      'netns',
      o.internetNetns,
    );
    const addr = async (ns: string, dev: string, a: string, len: number) =>
      ip(ns, 'addr', 'add', `${a}/${len}`, 'dev', dev, ...(a.includes(':') ? ['nodad'] : []));
    await addr(hv, 'epup0', U.uplink4.hypervisor, U.uplink4.prefixLength);
    await addr(hv, 'epup0', U.uplink6.hypervisor, U.uplink6.prefixLength);
    await addr(o.routerNetns, 'epdown0', U.uplink4.router, U.uplink4.prefixLength);
    await addr(o.routerNetns, 'epdown0', U.uplink6.router, U.uplink6.prefixLength);
    await addr(o.routerNetns, 'epnet0', U.internet4.router, U.internet4.prefixLength);
    await addr(o.routerNetns, 'epnet0', U.internet6.router, U.internet6.prefixLength);
    await addr(o.internetNetns, 'epnet1', U.internet4.echo, U.internet4.prefixLength);
    await addr(o.internetNetns, 'epnet1', U.internet6.echo, U.internet6.prefixLength);
    // The bridge is the planned block's gateway, as on a host with a routed block.
    await addr(hv, o.bridge, U.ipv4Gateway, Number(U.ipv4Block.split('/')[1]));
    await addr(hv, o.bridge, U.ipv6Gateway, Number(U.ipv6Prefix.split('/')[1]));
    for (const [ns, dev] of [
      [hv, 'epup0'],
      [o.routerNetns, 'epdown0'],
      [o.routerNetns, 'epnet0'],
      [o.internetNetns, 'epnet1'],
    ] as const)
      await ip(ns, 'link', 'set', dev, 'up');
    // The hypervisor and the router forward; nothing is masqueraded.
    for (const ns of [hv, o.routerNetns]) {
      await sysctl(ns, 'net.ipv4.ip_forward');
      await sysctl(ns, 'net.ipv6.conf.all.forwarding');
    }
    // The router: the block and the prefix go to the hypervisor (the lines the guide shows).
    await ip(o.routerNetns, 'route', 'add', ...routerRoutes[0]!.split(' '));
    await ip(o.routerNetns, '-6', 'route', 'add', ...routerRoutes[1]!.split(' '));
    // The hypervisor: only the "internet" goes up the uplink (no default route: everything else
    // stays as unroutable as before).
    await ip(hv, 'route', 'add', U.internet4.net, 'via', U.uplink4.router);
    await ip(hv, '-6', 'route', 'add', U.internet6.net, 'via', U.uplink6.router);
    // The internet answers through the router.
    await ip(o.internetNetns, 'route', 'add', 'default', 'via', U.internet4.router);
    await ip(o.internetNetns, '-6', 'route', 'add', 'default', 'via', U.internet6.router);

    const logPath = join(o.dir, 'internet-echo.log');
    const [cmd, args] = inNetns(o.internetNetns, process.execPath, ['-e', ECHO_SCRIPT, String(U.echoPort)]);
    const { child, exited } = spawnLogged(cmd, args, logPath);
    echoPid = child.pid;
    const log = () => {
      try {
        return readFileSync(logPath, 'utf8');
      } catch {
        return '';
      }
    };
    const deadline = Date.now() + 15_000;
    while (!log().includes('listening') && exited() === undefined && Date.now() < deadline)
      await sleep(100, o.signal);
    if (
      echoPid === undefined ||
      exited() !== undefined ||
      !isAlive(echoPid) ||
      !log().includes('listening')
    ) {
      throw new TestEnvVmError(
        'NETNS_FAILED',
        `the echo server did not start in ${o.internetNetns} (${exited() ?? 'not listening'}): ${log().slice(-1000)}`,
      );
    }
    return {
      routerNetns: o.routerNetns,
      internetNetns: o.internetNetns,
      echoUrl4: `http://${U.internet4.echo}:${U.echoPort}/`,
      echoUrl6: `http://[${U.internet6.echo}]:${U.echoPort}/`,
      echoLogPath: logPath,
      echoCallers: () => echoCallersIn(log()),
      routerRoutes,
      teardown,
    };
  } catch (e) {
    await teardown().catch(() => undefined);
    throw e;
  }
}

/** The callers in the echo server's log text, in order. */
export function echoCallersIn(logText: string): string[] {
  return logText
    .split('\n')
    .filter((l) => l.startsWith('caller '))
    .map((l) => l.slice('caller '.length).trim());
}
