// The gateway benchmark (loopback; part of `pnpm bench`, alone: `pnpm bench:gateway` in
// apps/operator after `pnpm build`). Three routes to the same targets over the same 3 proxy-chain
// members, each in its own process:
//   direct: the client talks to one member itself (the baseline);
//   gateway: the pool gateway choosing a member per connection;
//   squid: Squid as a gateway (cache_peer ... round-robin parents, never_direct allow all).
// Measures the added latency of a plain GET (p50/p99 of sequential keep-alive requests), CONNECT
// throughput (1 GiB through one tunnel), 5,000 tunnels held open (the gateway's peak RSS and the
// time to open them all), and the member choice at 10/100/1,000 members. The routes take turns
// round after round and each figure is the median over the rounds, so a burst of load elsewhere
// on the machine hits every route alike; the CPU time each hop's process spent is read from /proc,
// a cost that load does not inflate. Writes bench/gateway-results.md.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const children = [];
const GiB = 1 << 30;
const ROUNDS = Number(process.env.GATEWAY_BENCH_ROUNDS ?? 5);
const GETS = 1000;
const SQUID = process.env.SQUID ?? '/usr/sbin/squid';

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
  const p = spawn(SQUID, ['-N', '-f', join(dir, 'squid.conf')], { stdio: 'ignore' });
  children.push(p);
  for (let i = 0; i < 200; i++) {
    const ok = await new Promise((r) => {
      const s = connect(port, '127.0.0.1', () => {
        s.destroy();
        r(true);
      });
      s.on('error', () => r(false));
    });
    if (ok) return { port, dir, pid: p.pid };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `squid did not listen; see ${dir}/cache.log: ${readFileSync(join(dir, 'cache.log'), 'utf8').slice(-500)}`,
  );
}

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function latency(proxyPort, target, n) {
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

// In this process: the table the gateway consults, without the network. Best of 3 runs of
// 200,000 choices, so a pause of the machine does not count as the table's cost.
async function choiceCost() {
  const { MemberTable } = await import('../../dist/index.js');
  const rows = [];
  for (const n of [10, 100, 1000]) {
    const members = Array.from({ length: n }, (_, i) => ({ name: `proxy-${i}`, host: '127.0.0.1', port: 1 }));
    const cost = {};
    for (const [label, sel, sticky] of [
      ['round-robin', 'round-robin', false],
      ['least-connections', 'least-connections', false],
      ['new session', 'round-robin', 'new'],
      ['known session', 'round-robin', 'known'],
    ]) {
      const t = new MemberTable({ selection: sel });
      t.setMembers(members);
      // Half the members busy, so least-connections cannot stop at the first idle one.
      for (let i = 0; i < n; i += 2) t.hold(`proxy-${i}`);
      const iters = 200_000;
      const session = (i) => (sticky === 'new' ? `s${i}` : sticky === 'known' ? `k${i % 1000}` : undefined);
      const runs = [];
      for (let run = 0; run < 3; run++) {
        const t0 = process.hrtime.bigint();
        for (let i = 0; i < iters; i++) t.choose(session(i + run * iters));
        runs.push(Number(process.hrtime.bigint() - t0) / iters);
      }
      cost[label] = Math.min(...runs);
    }
    rows.push({ n, ...cost });
  }
  return rows;
}

try {
  if (spawnSync(SQUID, ['-v']).status !== 0)
    throw new Error(`${SQUID} cannot run: the Squid baseline needs Squid installed (or SQUID=path)`);
  const targets = await child(['targets']);
  const members = await child(['members', '3']);
  const gateway = await child(['gateway', members.ports.join(',')]);
  const squid = await startSquid(members.ports);
  const url = `http://127.0.0.1:${targets.http}/`;
  const tcp = `127.0.0.1:${targets.tcp}`;
  const routes = { direct: members.ports[0], gateway: gateway.port, squid: squid.port };
  // The process doing the relaying on each route, beyond the member: none, the gateway, Squid.
  const hop = { direct: members.pid, gateway: gateway.pid, squid: squid.pid };

  const lat = { direct: [], gateway: [], squid: [] };
  const latCpu = { direct: 0, gateway: 0, squid: 0 };
  const tput = { direct: [], gateway: [], squid: [] };
  const tputCpu = { direct: 0, gateway: 0, squid: 0 };
  // Every process a transfer runs through (target, members, the hop, this client): on a machine
  // where the processes wait for a core, throughput goes as the inverse of this total.
  const routeCpu = { direct: 0, gateway: 0, squid: 0 };
  const selfCpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  };
  const allCpu = (k) =>
    cpuSeconds(targets.pid) + cpuSeconds(members.pid) + (k === 'direct' ? 0 : cpuSeconds(hop[k])) + selfCpu();
  for (let r = 0; r < ROUNDS; r++)
    for (const [k, port] of Object.entries(routes)) {
      const c0 = cpuSeconds(hop[k]);
      lat[k].push(await latency(port, url, GETS));
      latCpu[k] += cpuSeconds(hop[k]) - c0;
    }
  for (let r = 0; r < ROUNDS; r++)
    for (const [k, port] of Object.entries(routes)) {
      const c0 = cpuSeconds(hop[k]);
      const a0 = allCpu(k);
      tput[k].push(await throughput(port, tcp));
      tputCpu[k] += cpuSeconds(hop[k]) - c0;
      routeCpu[k] += allCpu(k) - a0;
    }
  const gwBefore = peakRss(gateway.pid);
  const held = await holdTunnels(gateway.port, tcp);
  const gwPeak = peakRss(gateway.pid);
  held.close();
  const choice = await choiceCost();

  const f = (x, d = 2) => x.toFixed(d);
  const p = (k, q) => median(lat[k].map((x) => x[q]));
  const added = (k, q) => f(p(k, q) - p('direct', q), 3);
  const usPerGet = (k) => f((latCpu[k] * 1e6) / (lat[k].length * (GETS + 100)), 0);
  const mibs = (k) => median(tput[k]);
  const sPerGiB = (k) => f(tputCpu[k] / tput[k].length, 2);
  const routePerGiB = (k) => routeCpu[k] / tput[k].length;
  const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'})`;
  const md = `# Gateway benchmarks

Command: \`pnpm bench\` (or \`pnpm bench:gateway\` in apps/operator, after \`pnpm build\`; then
\`pnpm bench --gather\` regathers bench/RESULTS.md). Run ${new Date().toISOString().slice(0, 10)}, Node
${process.version}, ${machine}, loopback. Squid ${/Version (\S+)/.exec(spawnSync(SQUID, ['-v'], { encoding: 'utf8' }).stdout)?.[1] ?? ''}. Members: 3 proxy-chain processes (provider-local's
Node engine); the gateway, the members, Squid and the targets each run in their own process. The
routes take turns; each figure is the median over ${ROUNDS} rounds. "Hop CPU" is what the hop's
own process used (the member process for direct), from /proc.

## Plain-HTTP GET, ${GETS.toLocaleString('en')} sequential keep-alive requests per round (ms)

| route | p50 | p99 | added p50 vs direct | added p99 vs direct | hop CPU per GET (us) |
| --- | --- | --- | --- | --- | --- |
| direct to one member (baseline) | ${f(p('direct', 'p50'), 3)} | ${f(p('direct', 'p99'), 3)} | - | - | ${usPerGet('direct')} (the member) |
| gateway (round-robin) | ${f(p('gateway', 'p50'), 3)} | ${f(p('gateway', 'p99'), 3)} | ${added('gateway', 'p50')} | ${added('gateway', 'p99')} | ${usPerGet('gateway')} |
| Squid gateway (cache_peer round-robin) | ${f(p('squid', 'p50'), 3)} | ${f(p('squid', 'p99'), 3)} | ${added('squid', 'p50')} | ${added('squid', 'p99')} | ${usPerGet('squid')} |

Target: the gateway's added latency below Squid's.

## CONNECT throughput, 1 GiB through one tunnel (MiB/s)

| route | MiB/s (median) | all rounds | vs direct | hop CPU per GiB (s) | whole route CPU per GiB (s) | direct's route CPU / this one's |
| --- | --- | --- | --- | --- | --- | --- |
| direct to one member (baseline) | ${f(mibs('direct'), 0)} | ${tput.direct.map((x) => f(x, 0)).join(', ')} | 1.00x | ${sPerGiB('direct')} (the member) | ${f(routePerGiB('direct'))} | 1.00x |
| gateway | ${f(mibs('gateway'), 0)} | ${tput.gateway.map((x) => f(x, 0)).join(', ')} | ${f(mibs('gateway') / mibs('direct'))}x | ${sPerGiB('gateway')} | ${f(routePerGiB('gateway'))} | ${f(routePerGiB('direct') / routePerGiB('gateway'))}x |
| Squid gateway | ${f(mibs('squid'), 0)} | ${tput.squid.map((x) => f(x, 0)).join(', ')} | ${f(mibs('squid') / mibs('direct'))}x | ${sPerGiB('squid')} | ${f(routePerGiB('squid'))} | ${f(routePerGiB('direct') / routePerGiB('squid'))}x |

Target: >= 0.8x direct and >= Squid. The whole route's CPU (target, members, hop, client) is the
load-independent side of it: where the processes share busy cores, MiB/s goes as its inverse.

## 5,000 tunnels held open through the gateway

| time to open all (ms) | gateway peak RSS before (MB) | gateway peak RSS with 5,000 open (MB) | target |
| --- | --- | --- | --- |
| ${f(held.ms, 0)} | ${f(gwBefore, 0)} | ${f(gwPeak, 0)} | < 300 MB |

## Member choice, ns per choice (best of 3 runs of 200,000 choices, half the members busy)

| members | round-robin | least-connections | new session | known session |
| --- | --- | --- | --- | --- |
${choice.map((r) => `| ${r.n} | ${f(r['round-robin'], 0)} | ${f(r['least-connections'], 0)} | ${f(r['new session'], 0)} | ${f(r['known session'], 0)} |`).join('\n')}

Target: flat as the pool grows. A session's member is one lookup in a Maglev table built when the
members change (65,537 slots up to 6,553 members); a new and a known session cost the same but for
the first sighting's bookkeeping. Round-robin is O(1); least-connections scans the members until
an idle one (here the second).
`;
  writeFileSync(join(here, '..', 'gateway-results.md'), md);
  process.stdout.write(md);
  rmSync(squid.dir, { recursive: true, force: true });
} finally {
  for (const c of children) c.kill('SIGKILL');
}
