// The gateway benchmark (one run, loopback; `pnpm bench:gateway` in apps/operator after `pnpm build`).
// Three routes to the same targets over the same 3 proxy-chain members, each in its own process:
//   direct: the client talks to one member itself (the baseline);
//   gateway: the pool gateway choosing a member per connection;
//   squid: Squid as a gateway (cache_peer ... round-robin parents, never_direct allow all).
// Measures the added latency of a plain GET (p50/p99 of 2,000 sequential keep-alive requests),
// CONNECT throughput (1 GiB through one tunnel), 5,000 tunnels held open (the gateway's peak RSS
// and the time to open them all), and the member choice at 10/100/1,000 members. Writes
// bench/gateway-results.md.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const children = [];
const GiB = 1 << 30;

function child(args, opts = {}) {
  const p = spawn(process.execPath, [join(here, 'servers.mjs'), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    ...opts,
  });
  children.push(p);
  return new Promise((resolve, reject) => {
    let out = '';
    p.stdout.on('data', (c) => {
      out += c;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve({ pid: p.pid, ...JSON.parse(out.slice(0, nl)) });
    });
    p.once('exit', (code) => reject(new Error(`${args[0]} exited ${code}`)));
  });
}

const freePort = () =>
  new Promise((r) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => r(port));
    });
  });

async function startSquid(memberPorts) {
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-squid-'));
  spawnSync('chmod', ['777', dir]);
  const port = await freePort();
  const conf = [
    `http_port 127.0.0.1:${port}`,
    'http_access allow localhost',
    'http_access deny all',
    ...memberPorts.map(
      (p, i) => `cache_peer 127.0.0.1 parent ${p} 0 no-query no-digest round-robin name=m${i}`,
    ),
    'never_direct allow all',
    'cache deny all',
    'cache_mem 0 MB',
    'access_log none',
    'cache_store_log none',
    'netdb_filename none',
    'pinger_enable off',
    'shutdown_lifetime 1 seconds',
    'max_filedescriptors 16384',
    `pid_filename ${dir}/squid.pid`,
    `cache_log ${dir}/cache.log`,
    `coredump_dir ${dir}`,
  ].join('\n');
  writeFileSync(join(dir, 'squid.conf'), `${conf}\n`);
  const p = spawn('/usr/sbin/squid', ['-N', '-f', join(dir, 'squid.conf')], { stdio: 'ignore' });
  children.push(p);
  for (let i = 0; i < 200; i++) {
    const ok = await new Promise((r) => {
      const s = connect(port, '127.0.0.1', () => {
        s.destroy();
        r(true);
      });
      s.on('error', () => r(false));
    });
    if (ok) return { port, dir };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `squid did not listen; see ${dir}/cache.log: ${readFileSync(join(dir, 'cache.log'), 'utf8').slice(-500)}`,
  );
}

async function latency(proxyPort, target, n = 2000) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = () =>
    new Promise((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const req = request({ host: '127.0.0.1', port: proxyPort, path: target, agent }, (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(Number(process.hrtime.bigint() - t0) / 1e6)
            : reject(new Error(`status ${res.statusCode}`)),
        );
      });
      req.on('error', reject);
      req.end();
    });
  for (let i = 0; i < 100; i++) await get(); // warm-up
  const xs = [];
  for (let i = 0; i < n; i++) xs.push(await get());
  agent.destroy();
  xs.sort((a, b) => a - b);
  return { p50: xs[Math.floor(n * 0.5)], p99: xs[Math.floor(n * 0.99)] };
}

function tunnel(proxyPort, target) {
  return new Promise((resolve, reject) => {
    const s = connect(proxyPort, '127.0.0.1');
    s.on('error', reject);
    s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
    let head = '';
    const onData = (c) => {
      head += c.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      s.off('data', onData);
      if (!/^HTTP\/1\.[01] 200/.test(head)) return reject(new Error(head.split('\r\n')[0]));
      resolve(s);
    };
    s.on('data', onData);
  });
}

async function throughput(proxyPort, target, bytes = GiB) {
  const s = await tunnel(proxyPort, target);
  const t0 = process.hrtime.bigint();
  let got = 0;
  await new Promise((resolve, reject) => {
    s.on('data', (c) => {
      got += c.length;
    });
    s.on('end', resolve);
    s.on('error', reject);
    s.write(`${bytes}\n`);
  });
  if (got !== bytes) throw new Error(`got ${got} of ${bytes} bytes`);
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  return bytes / (1 << 20) / secs;
}

const peakRss = (pid) =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

async function holdTunnels(proxyPort, target, n = 5000) {
  const t0 = process.hrtime.bigint();
  const sockets = [];
  // 200 handshakes in flight at a time: what a crawler's connection pool does, not a SYN flood.
  for (let i = 0; i < n; i += 200) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(200, n - i) }, () => tunnel(proxyPort, target)),
    );
    for (const s of batch) s.write('0\n');
    sockets.push(...batch);
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return {
    ms,
    close: () => {
      for (const s of sockets) s.destroy();
    },
  };
}

async function choiceCost() {
  const { MemberTable } = await import('../../dist/index.js');
  const rows = [];
  for (const n of [10, 100, 1000]) {
    const members = Array.from({ length: n }, (_, i) => ({ name: `proxy-${i}`, host: '127.0.0.1', port: 1 }));
    const cost = {};
    for (const [label, sel, sticky] of [
      ['round-robin', 'round-robin', false],
      ['least-connections', 'least-connections', false],
      ['new session (rendezvous)', 'round-robin', 'new'],
      ['pinned session', 'round-robin', 'pinned'],
    ]) {
      const t = new MemberTable({ selection: sel });
      t.setMembers(members);
      const iters = 200_000;
      // Half the members busy, so least-connections cannot stop at the first idle one.
      for (let i = 0; i < n; i += 2) t.hold(`proxy-${i}`);
      const t0 = process.hrtime.bigint();
      const session = (i) => (sticky === 'new' ? `s${i}` : sticky === 'pinned' ? `p${i % 1000}` : undefined);
      for (let i = 0; i < iters; i++) t.choose(session(i));
      cost[label] = Number(process.hrtime.bigint() - t0) / iters;
    }
    rows.push({ n, ...cost });
  }
  return rows;
}

try {
  const targets = await child(['targets']);
  const members = await child(['members', '3']);
  const gateway = await child(['gateway', members.ports.join(',')]);
  const squid = await startSquid(members.ports);
  const url = `http://127.0.0.1:${targets.http}/`;
  const tcp = `127.0.0.1:${targets.tcp}`;
  const routes = { direct: members.ports[0], gateway: gateway.port, squid: squid.port };

  const lat = {};
  for (const [k, port] of Object.entries(routes)) lat[k] = await latency(port, url);
  const tput = {};
  for (const [k, port] of Object.entries(routes)) tput[k] = await throughput(port, tcp);
  const gwBefore = peakRss(gateway.pid);
  const held = await holdTunnels(gateway.port, tcp);
  const gwPeak = peakRss(gateway.pid);
  held.close();
  const choice = await choiceCost();

  const f = (x, d = 2) => x.toFixed(d);
  const added = (k, q) => f(lat[k][q] - lat.direct[q], 3);
  const md = `# Gateway benchmarks

Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, loopback, one run. Reproduce:
\`pnpm bench:gateway\` in apps/operator (after \`pnpm build\`; Squid at /usr/sbin/squid). Members:
3 proxy-chain processes (provider-local's Node engine); the gateway, the members, Squid and the
targets each run in their own process.

## Plain-HTTP GET, 2,000 sequential keep-alive requests (ms)

| route | p50 | p99 | added p50 vs direct | added p99 vs direct |
| --- | --- | --- | --- | --- |
| direct to one member (baseline) | ${f(lat.direct.p50, 3)} | ${f(lat.direct.p99, 3)} | - | - |
| gateway (round-robin) | ${f(lat.gateway.p50, 3)} | ${f(lat.gateway.p99, 3)} | ${added('gateway', 'p50')} | ${added('gateway', 'p99')} |
| Squid gateway (cache_peer round-robin) | ${f(lat.squid.p50, 3)} | ${f(lat.squid.p99, 3)} | ${added('squid', 'p50')} | ${added('squid', 'p99')} |

## CONNECT throughput, 1 GiB through one tunnel (MiB/s)

| route | MiB/s | vs direct |
| --- | --- | --- |
| direct to one member (baseline) | ${f(tput.direct, 0)} | 1.00x |
| gateway | ${f(tput.gateway, 0)} | ${f(tput.gateway / tput.direct)}x |
| Squid gateway | ${f(tput.squid, 0)} | ${f(tput.squid / tput.direct)}x |

## 5,000 tunnels held open through the gateway

| time to open all (ms) | gateway peak RSS before (MB) | gateway peak RSS with 5,000 open (MB) | target |
| --- | --- | --- | --- |
| ${f(held.ms, 0)} | ${f(gwBefore, 0)} | ${f(gwPeak, 0)} | < 300 MB |

## Member choice, ns per choice (200,000 choices, half the members busy)

| members | round-robin | least-connections | new session (rendezvous) | pinned session |
| --- | --- | --- | --- | --- |
${choice.map((r) => `| ${r.n} | ${f(r['round-robin'], 0)} | ${f(r['least-connections'], 0)} | ${f(r['new session (rendezvous)'], 0)} | ${f(r['pinned session'], 0)} |`).join('\n')}

Round-robin is O(1); least-connections and a new session's rendezvous pick scan the eligible
members (O(n)); a session already pinned is a map lookup.
`;
  writeFileSync(join(here, '..', 'gateway-results.md'), md);
  process.stdout.write(md);
  rmSync(squid.dir, { recursive: true, force: true });
} finally {
  for (const c of children) c.kill('SIGKILL');
}
