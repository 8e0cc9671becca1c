// Child processes of the gateway benchmark, so each side's CPU and RSS are its own:
//   node servers.mjs members N       N proxy-chain members (provider-local's Node engine)
//   node servers.mjs gateway PORTS   the pool gateway over those members (comma-separated ports)
//   node servers.mjs textbook PORT   the textbook Node forward proxy (http.request with a keep-alive
//                                    agent, piped) in front of the member at PORT: the floor of
//                                    Node's HTTP stack that the gateway is built on
//   node servers.mjs raw PORT        a minimal raw-socket HTTP/1.1 relay (raw-relay.mjs) in front of
//                                    the member at PORT: what a hop costs around the http module
//   node servers.mjs targets         an HTTP echo target and a TCP source of N bytes per connection
// GATEWAY_BENCH_DIST: the operator build the gateway comes from (default ../../dist), to compare
// two builds with the same command.
// Each prints one JSON line with what it listens on, then runs until killed. Each exits cleanly on
// SIGTERM, so a `--cpu-prof` run writes its profile.
import { Agent, createServer as createHttp, request } from 'node:http';
import { createServer as createTcp } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [kind, arg] = process.argv.slice(2);
// A clean exit on SIGTERM, so a `--cpu-prof` run writes its profile.
process.once('SIGTERM', () => process.exit(0));
const listen = (server) => new Promise((r) => server.listen(0, '127.0.0.1', () => r(server.address().port)));

if (kind === 'members') {
  const { Server } = await import('proxy-chain');
  const ports = [];
  for (let i = 0; i < Number(arg); i++) {
    const s = new Server({ host: '127.0.0.1', port: 0, verbose: false });
    await s.listen();
    ports.push(s.port);
  }
  console.log(JSON.stringify({ ports }));
} else if (kind === 'gateway') {
  const dist = process.env.GATEWAY_BENCH_DIST
    ? pathToFileURL(resolve(process.env.GATEWAY_BENCH_DIST, 'index.js')).href
    : '../../dist/index.js';
  const { startGateway } = await import(dist);
  // The bench's one client address holds 5,000 tunnels at once: above the per-client default.
  const g = await startGateway({ pool: 'bench', connectTimeoutMs: 60_000, maxConnectionsPerClient: 10_000 });
  g.members.setMembers(arg.split(',').map((p, i) => ({ name: `m${i}`, host: '127.0.0.1', port: Number(p) })));
  console.log(JSON.stringify({ port: g.port }));
} else if (kind === 'textbook') {
  const agent = new Agent({ keepAlive: true, maxFreeSockets: 256, scheduling: 'lifo' });
  const server = createHttp((req, res) => {
    const up = request(
      {
        host: '127.0.0.1',
        port: Number(arg),
        method: req.method,
        path: req.url,
        headers: req.rawHeaders,
        agent,
      },
      (ur) => {
        res.writeHead(ur.statusCode, ur.rawHeaders);
        ur.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    up.end();
  });
  console.log(JSON.stringify({ port: await listen(server) }));
} else if (kind === 'raw') {
  const { startRawRelay } = await import('./raw-relay.mjs');
  console.log(JSON.stringify({ port: await listen(startRawRelay(Number(arg))) }));
} else if (kind === 'targets') {
  const body = Buffer.from('{"ip":"127.0.0.1"}\n');
  const http = createHttp((_req, res) => res.writeHead(200, { 'content-length': body.length }).end(body));
  http.keepAliveTimeout = 60_000;
  // The source: the client writes the byte count it wants as an ASCII line, then reads that many.
  const chunk = Buffer.alloc(1 << 20, 120);
  const tcp = createTcp((s) => {
    s.on('error', () => {});
    s.once('data', (d) => {
      let left = Number(d.toString().trim());
      if (!left) return; // a held-open tunnel: nothing to send
      const pump = () => {
        while (left > 0) {
          const n = Math.min(left, chunk.length);
          left -= n;
          if (!s.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void s.once('drain', pump);
        }
        s.end();
      };
      pump();
    });
  });
  console.log(JSON.stringify({ http: await listen(http), tcp: await listen(tcp) }));
}
