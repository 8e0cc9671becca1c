#!/usr/bin/env node
// Runs one egress proxy with proxy-chain: `node node-proxy-runner.mjs <config.json>`.
// The config holds the listen address, the port, the allowed source CIDRs and an optional
// local (source) address for outgoing connections. It exits on SIGTERM after closing the server.
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

const server = new Server({
  host: config.host,
  port: config.port,
  verbose: false,
  prepareRequestFunction: ({ request }) => {
    if (!sourceAllowed(request.socket.remoteAddress)) {
      throw new RequestError('Access denied: source address not allowed', 403);
    }
    return config.localAddress ? { localAddress: config.localAddress } : {};
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
