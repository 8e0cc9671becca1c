/**
 * The egress plan on a real routed network, as root: an "internet" namespace with an echo server
 * that answers with the source address it saw, a proxy-side namespace holding two planned IPv4
 * host addresses and an IPv6 prefix declared local (the README's host setup), the internet routing
 * both back to the proxy side. The proxies run in the proxy namespace (the driver script starts
 * them there with the built package). Namespaces, and with them their links and routes, are
 * removed whatever happens.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ipv6InPrefix } from '@egress-proxies/provider-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAllAndRemove, tempStateDir } from './helpers.js';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const DIST = join(here, '..', 'dist', 'index.js');

// Named like the other test environments' namespaces (ep-<owner pid>-<tag>), so a leftover is traceable.
const INET = `ep-${process.pid}-inet`;
const PROXY = `ep-${process.pid}-prx`;
const VETH_PROXY = `ep${process.pid}p`;
const VETH_INET = `ep${process.pid}i`;
const PREFIX = '2001:db8:27::/64';
const PLANNED_V4 = ['192.0.2.11', '192.0.2.12'];
const ECHO_PORT = 18027;
const V6_REQUESTS = 40;

const ip = (...args: string[]) => run('ip', args);
const inNs = (ns: string, ...cmd: string[]) => run('ip', ['netns', 'exec', ns, ...cmd]);

let echo: ChildProcess | undefined;
let stateDir: string | undefined;

async function deleteNetns(name: string): Promise<void> {
  const { stdout } = await ip('netns', 'list');
  if (!stdout.split('\n').some((l) => l.split(' ')[0] === name)) return;
  const pids = await ip('netns', 'pids', name).then(
    (r) => r.stdout.split(/\s+/).filter((s) => /^\d+$/.test(s)),
    () => [],
  );
  for (const pid of pids) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone already
    }
  }
  // Deleting the namespace deletes its end of the veth pair, the other end and the routes with it.
  await ip('netns', 'delete', name);
}

async function setUpNetwork(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('this test needs root (network namespaces, routes, sysctl)');
  for (const ns of [INET, PROXY]) {
    await ip('netns', 'add', ns);
    await ip('-n', ns, 'link', 'set', 'lo', 'up');
  }
  await ip(
    'link',
    'add',
    VETH_PROXY,
    'netns',
    PROXY,
    'type',
    'veth',
    'peer',
    'name',
    VETH_INET,
    'netns',
    INET,
  );
  // Proxy side: the uplink, the planned IPv4 host addresses, the IPv6 prefix declared local.
  await ip('-n', PROXY, 'addr', 'add', '198.51.100.1/24', 'dev', VETH_PROXY);
  await ip('-n', PROXY, 'addr', 'add', 'fd00:27::1/64', 'dev', VETH_PROXY, 'nodad');
  await ip('-n', PROXY, 'link', 'set', VETH_PROXY, 'up');
  for (const a of PLANNED_V4) await ip('-n', PROXY, 'addr', 'add', `${a}/32`, 'dev', 'lo');
  await ip('-n', PROXY, '-6', 'route', 'add', 'local', PREFIX, 'dev', 'lo');
  await inNs(PROXY, 'sysctl', '-qw', 'net.ipv6.ip_nonlocal_bind=1');
  // The internet: routes the planned block and the prefix to the proxy side.
  await ip('-n', INET, 'addr', 'add', '198.51.100.2/24', 'dev', VETH_INET);
  await ip('-n', INET, 'addr', 'add', 'fd00:27::2/64', 'dev', VETH_INET, 'nodad');
  await ip('-n', INET, 'link', 'set', VETH_INET, 'up');
  await ip('-n', INET, 'route', 'add', '192.0.2.0/24', 'via', '198.51.100.1');
  await ip('-n', INET, '-6', 'route', 'add', PREFIX, 'via', 'fd00:27::1');
}

async function startEchoInInternet(): Promise<void> {
  // One dual-stack socket; an IPv4 client shows as ::ffff:a.b.c.d there, reported as a.b.c.d.
  const script = `require('node:http').createServer((q, s) => { s.end(JSON.stringify({ remoteAddress: q.socket.remoteAddress.replace(/^::ffff:/, '') })); }).listen(${ECHO_PORT}, '::', () => console.log('ready'));`;
  echo = spawn('ip', ['netns', 'exec', INET, process.execPath, '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    echo?.stdout?.once('data', () => resolve());
    echo?.once('exit', (code) => reject(new Error(`the echo server exited with ${code}`)));
  });
}

interface DriverResult {
  id: string;
  egress?: { ipv4?: string; ipv6Prefix?: string };
  v4Seen: string;
  v6Seen: string[];
}

beforeAll(async () => {
  if (!existsSync(DIST)) throw new Error(`${DIST} is missing: build the package first (pnpm build)`);
  try {
    await setUpNetwork();
    await startEchoInInternet();
  } catch (err) {
    await tearDown();
    throw err;
  }
}, 60_000);

async function tearDown(): Promise<void> {
  echo?.kill('SIGKILL');
  const errors: unknown[] = [];
  for (const ns of [PROXY, INET]) await deleteNetns(ns).catch((e: unknown) => errors.push(e));
  if (stateDir) await killAllAndRemove(stateDir);
  await rm(stateDir ?? '/nonexistent', { recursive: true, force: true });
  if (errors.length > 0) throw errors[0];
}

afterAll(tearDown, 60_000);

describe('egress plan in network namespaces', () => {
  it('each proxy leaves from its own planned IPv4 address, and from a new address of the prefix per IPv6 connection', async () => {
    stateDir = await tempStateDir('netns');
    const args = {
      stateDir,
      egress: { ipv4: ['192.0.2.10-192.0.2.12'], exclude: ['192.0.2.10'], ipv6Prefix: PREFIX },
      targets: { v4: `http://198.51.100.2:${ECHO_PORT}/`, v6: `http://[fd00:27::2]:${ECHO_PORT}/` },
      proxies: 2,
      v6Requests: V6_REQUESTS,
    };
    const { stdout } = await inNs(
      PROXY,
      process.execPath,
      join(here, 'netns-driver.mjs'),
      JSON.stringify(args),
    );
    const results = JSON.parse(stdout) as DriverResult[];
    expect(results).toHaveLength(2);
    const [a, b] = results as [DriverResult, DriverResult];

    // IPv4: each proxy is seen with its own planned address, the one it reports.
    expect(new Set([a.egress?.ipv4, b.egress?.ipv4])).toEqual(new Set(PLANNED_V4));
    expect(a.v4Seen).toBe(a.egress?.ipv4);
    expect(b.v4Seen).toBe(b.egress?.ipv4);

    // IPv6: every connection from its own address, all inside the prefix.
    for (const r of results) {
      expect(r.egress?.ipv6Prefix).toBe(PREFIX);
      expect(r.v6Seen).toHaveLength(V6_REQUESTS);
      expect(new Set(r.v6Seen).size).toBe(V6_REQUESTS);
      expect(r.v6Seen.filter((s) => !ipv6InPrefix(s, PREFIX))).toEqual([]);
    }
  }, 120_000);
});
