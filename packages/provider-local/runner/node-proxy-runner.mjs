#!/usr/bin/env node
// Runs one egress proxy with proxy-chain: `node node-proxy-runner.mjs <config.json>`.
// The config holds the listen address, the port, the allowed source CIDRs and an optional
// local (source) address for outgoing connections, and an optional IPv6 prefix: every outgoing
// IPv6 connection then leaves from its own random address of the prefix (the host declares the
// prefix local and allows non-local binds; see the README). It exits on SIGTERM after closing.
import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import { RequestError, Server } from 'proxy-chain';

const configPath = process.argv[2];
if (!configPath) {
  process.stderr.write('usage: node-proxy-runner.mjs <config.json>\n');
  process.exit(2);
}
const config = JSON.parse(readFileSync(configPath, 'utf8'));

const allowed = new BlockList();
for (const cidr of config.allowedSourceCIDRs) {
  const [addr, prefix] = cidr.split('/');
  allowed.addSubnet(addr, Number(prefix), isIP(addr) === 6 ? 'ipv6' : 'ipv4');
}

function sourceAllowed(address) {
  if (!address) return false;
  // A dual-stack socket reports IPv4 clients as ::ffff:a.b.c.d.
  const v4 = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : undefined;
  if (v4) return allowed.check(v4, 'ipv4');
  return allowed.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

const localFamily = config.localAddress ? isIP(config.localAddress) : 0;

/** The prefix as [network, host mask] over 128 bits. */
function parsePrefix(prefix) {
  const [addr, len] = prefix.split('/');
  const [head = '', tail] = addr.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  const value = groups.reduce((n, g) => (n << 16n) | BigInt(Number.parseInt(g, 16)), 0n);
  const hostMask = (1n << BigInt(128 - Number(len))) - 1n;
  return { network: value & ~hostMask, hostMask };
}
const prefix = config.ipv6Prefix ? parsePrefix(config.ipv6Prefix) : undefined;

/** A random address of the prefix; never the all-zero host part (the subnet-router anycast). */
function randomInPrefix() {
  let host = 0n;
  while (host === 0n && prefix.hostMask !== 0n) {
    host = BigInt(`0x${randomBytes(16).toString('hex')}`) & prefix.hostMask;
  }
  const value = prefix.network | host;
  const groups = [];
  for (let i = 7; i >= 0; i--) groups.push(((value >> BigInt(i * 16)) & 0xffffn).toString(16));
  return groups.join(':');
}

/**
 * Where one outgoing connection leaves from. With a prefix, a target reachable over IPv6 gets a
 * fresh address of the prefix (so each connection is distinct to the far end) and anything else
 * the configured IPv4 source; without one, the configured source for every connection.
 */
async function outgoing(hostname) {
  if (!prefix) return config.localAddress ? { localAddress: config.localAddress } : {};
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  let family = isIP(host);
  if (family === 0)
    family = await lookup(host, { family: 6 }).then(
      () => 6,
      () => 4,
    );
  if (family === 6) return { localAddress: randomInPrefix(), ipFamily: 6 };
  return localFamily === 4 ? { localAddress: config.localAddress, ipFamily: 4 } : { ipFamily: 4 };
}

const server = new Server({
  host: config.host,
  port: config.port,
  verbose: false,
  prepareRequestFunction: ({ request, hostname }) => {
    if (!sourceAllowed(request.socket.remoteAddress)) {
      throw new RequestError('Access denied: source address not allowed', 403);
    }
    return outgoing(hostname ?? '');
  },
});

server.on('requestFailed', ({ error }) => {
  process.stderr.write(`${new Date().toISOString()} request failed: ${error?.message ?? error}\n`);
});

try {
  await server.listen();
} catch (err) {
  // One line the provider can quote in its error (it shows the end of this log).
  process.stderr.write(`listen on ${config.host}:${config.port} failed: ${err?.message ?? err}\n`);
  process.exit(1);
}
process.stdout.write(`${new Date().toISOString()} listening on ${config.host}:${config.port}\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  server.close(true).then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
