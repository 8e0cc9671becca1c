// The gateway benchmark (loopback; part of `pnpm bench`, alone: `pnpm bench:gateway` in
// apps/operator after `pnpm build`). Four routes to the same target, each relay in its own process:
//   direct:  the client talks to the target itself;
//   member:  through one member alone (a proxy-chain process, provider-local's Node engine);
//   gateway: through the pool gateway in front of that same member (one member in the pool);
//   squid:   through a plain Squid forward proxy (no cache, no peers) in front of the target;
//   textbook (GETs only): the textbook Node forward proxy in front of the same member, the floor of
//            the Node HTTP stack the gateway is built on;
//   raw (GETs only): a minimal HTTP/1.1 relay on raw sockets (raw-relay.mjs) in front of the same
//            member, what a Node hop costs when its data path goes around the http module.
// A hop is a route minus the route it wraps: the gateway's hop is gateway - member, Squid's hop is
// squid - direct. The routes take turns round after round (the order rotating) and each figure is
// the median over the rounds, so a burst of load elsewhere on the machine hits every route alike;
// the CPU time of the gateway and Squid processes is read from /proc over their measured rounds,
// a cost that load does not inflate. Writes bench/gateway-results.md.
//
// `node bench/gateway/run.mjs --profile DIR [gateway|raw|textbook] [new]` instead runs only
// keep-alive GETs (with `new`: a new connection each) through that relay (the gateway by
// default), started with --cpu-prof, and prints the
// profile's top frames and where its busy time went by kind (the profile stays in DIR).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const children = [];
const MiB = 1 << 20;
const ROUNDS = Number(process.env.GATEWAY_BENCH_ROUNDS ?? 5);
const GETS = Number(process.env.GATEWAY_BENCH_GETS ?? 1000);
const WARMUP = 100;
// What the target answers a GET with (servers.mjs targets): '{"ip":"127.0.0.1"}\n'.
const TARGET_BODY_BYTES = 19;
const TUNNEL_BYTES = Number(process.env.GATEWAY_BENCH_TUNNEL_MIB ?? 512) * MiB;
const SQUID = process.env.SQUID ?? '/usr/sbin/squid';
const profileAt = process.argv.indexOf('--profile');
const profileDir = profileAt > 0 ? resolve(process.argv[profileAt + 1] ?? '') : undefined;
const profileRoute = profileAt > 0 ? (process.argv[profileAt + 2] ?? 'gateway') : undefined;
// `--profile DIR relay new`: GETs on a new connection each instead of keep-alive ones.
const profileKeepAlive = profileAt > 0 ? process.argv[profileAt + 3] !== 'new' : true;

function child(args, execArgv = []) {
  const p = spawn(process.execPath, [...execArgv, join(here, 'servers.mjs'), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(p);
  return new Promise((resolve, reject) => {
    let out = '';
    p.stdout.on('data', (c) => {
      out += c;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve({ pid: p.pid, proc: p, ...JSON.parse(out.slice(0, nl)) });
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

const canConnect = (port) =>
  new Promise((r) => {
    const s = connect(port, '127.0.0.1', () => {
      s.destroy();
      r(true);
    });
    s.on('error', () => r(false));
  });

/**
 * A plain forward proxy as Squid ships it, less what a proxy hop should not do here: no cache, no
 * peers, no access log (the gateway logs no request either), and CONNECT allowed to the bench's
 * target port (the stock config allows it to 443 only).
 */
async function startSquid(dir) {
  const port = await freePort();
  const conf = [
    `http_port 127.0.0.1:${port}`,
    'http_access allow localhost',
    'http_access deny all',
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
  // -N: one process, no daemon and no kids, so its pid is the process doing the relaying.
  const p = spawn(SQUID, ['-N', '-f', join(dir, 'squid.conf')], { stdio: 'ignore' });
  children.push(p);
  for (let i = 0; i < 200; i++) {
    if (await canConnect(port)) return { port, pid: p.pid };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `squid did not listen; its cache.log: ${readFileSync(join(dir, 'cache.log'), 'utf8').slice(-500)}`,
  );
}

/** CPU seconds a process has used so far, in user space and in the kernel. */
function cpuTimes(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: Number(f[11]) / 100, sys: Number(f[12]) / 100 };
}
const cpuSeconds = (pid) => {
  const t = cpuTimes(pid);
  return t.user + t.sys;
};
const selfCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One round of sequential small GETs: p50 and p99 in ms. `keepAlive` false: a new connection each. */
async function latency(port, path, n, keepAlive) {
  const agent = keepAlive ? new Agent({ keepAlive: true, maxSockets: 1 }) : false;
  const get = () =>
    new Promise((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
        // The whole answer or the run fails: a relay that cut or padded the body is not measured.
        let got = 0;
        res.on('data', (c) => {
          got += c.length;
        });
        res.on('end', () =>
          res.statusCode === 200 && got === TARGET_BODY_BYTES
            ? resolve(Number(process.hrtime.bigint() - t0) / 1e6)
            : reject(new Error(`status ${res.statusCode} and ${got} body bytes from port ${port}`)),
        );
      });
      req.on('error', reject);
      req.end();
    });
  for (let i = 0; i < WARMUP; i++) await get();
  const xs = [];
  for (let i = 0; i < n; i++) xs.push(await get());
  if (agent) agent.destroy();
  xs.sort((a, b) => a - b);
  return { p50: xs[Math.floor(n * 0.5)], p99: xs[Math.floor(n * 0.99)] };
}

/** A socket to `target` through the proxy at `port` (CONNECT), or straight to it without one. */
function tunnel(port, target) {
  return new Promise((resolve, reject) => {
    if (!port) {
      const [h, p] = target.split(':');
      const s = connect(Number(p), h, () => resolve(s));
      s.on('error', reject);
      return;
    }
    const s = connect(port, '127.0.0.1');
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

/** MiB/s of `bytes` from the target's source through one tunnel. */
async function throughput(port, target, bytes) {
  const s = await tunnel(port, target);
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
  return bytes / MiB / (Number(process.hrtime.bigint() - t0) / 1e9);
}

const peakRss = (pid) =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

async function holdTunnels(port, target, n = 5000) {
  const t0 = process.hrtime.bigint();
  const sockets = [];
  // 200 handshakes in flight at a time: what a crawler's connection pool does, not a SYN flood.
  for (let i = 0; i < n; i += 200) {
    const batch = await Promise.all(Array.from({ length: Math.min(200, n - i) }, () => tunnel(port, target)));
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

/** The profile's frames by self time: what the gateway's CPU went to. */
function topFrames(file, n = 25) {
  const { nodes, samples, timeDeltas } = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(nodes.map((x) => [x.id, x]));
  const self = new Map();
  let total = 0;
  samples.forEach((id, i) => {
    const { callFrame: c } = byId.get(id);
    const key = `${c.functionName || '(anonymous)'} ${c.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(dist|src)\//, '$1/')}:${c.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (timeDeltas[i] ?? 0));
    total += timeDeltas[i] ?? 0;
  });
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, us]) => `${((us / total) * 100).toFixed(1).padStart(5)}%  ${k}`)
    .join('\n');
}

/**
 * The profile's busy time (idle left out) by kind: the system calls Node makes from JavaScript
 * (socket writes), garbage collection, Node's http modules, its streams and sockets, module
 * loading at start, and the relay's own code.
 */
function framesByKind(file) {
  const { nodes, samples, timeDeltas } = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(nodes.map((x) => [x.id, x]));
  const kinds = new Map();
  let total = 0;
  samples.forEach((id, i) => {
    const { functionName: f, url } = byId.get(id).callFrame;
    if (f === '(idle)') return;
    const kind = !url
      ? /^write|^read|^writev/.test(f)
        ? `socket ${f}`
        : f.startsWith('(')
          ? f
          : 'other native'
      : /_http_/.test(url)
        ? "node's http modules"
        : /stream|net|events|timers|task_queues/.test(url)
          ? "node's streams, sockets, events"
          : /modules|loader|bootstrap|node:fs|url/.test(url)
            ? 'module loading (start)'
            : url.startsWith('node:')
              ? 'other node internals'
              : "the relay's own code";
    kinds.set(kind, (kinds.get(kind) ?? 0) + (timeDeltas[i] ?? 0));
    total += timeDeltas[i] ?? 0;
  });
  const lines = [...kinds]
    .sort((a, b) => b[1] - a[1])
    .map(([k, us]) => `${((us / total) * 100).toFixed(1).padStart(5)}%  ${k}`);
  return [`busy ${(total / 1000).toFixed(0)} ms in all (wall time sampled while not idle)`, ...lines].join(
    '\n',
  );
}

const fixed = (x, d = 3) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const load1 = () => loadavg()[0].toFixed(2);

async function profile(dir) {
  const targets = await child(['targets']);
  const members = await child(['members', '1']);
  const args = profileRoute === 'gateway' ? members.ports.join(',') : String(members.ports[0]);
  if (!['gateway', 'raw', 'textbook'].includes(profileRoute))
    throw new Error(`--profile DIR [gateway|raw|textbook] [new]: no relay named ${profileRoute}`);
  const gateway = await child([profileRoute, args], ['--cpu-prof', '--cpu-prof-dir', dir]);
  const url = `http://127.0.0.1:${targets.http}/`;
  for (let r = 0; r < ROUNDS; r++) await latency(gateway.port, url, GETS * 4, profileKeepAlive);
  const exited = new Promise((r) => gateway.proc.once('exit', r));
  gateway.proc.kill('SIGTERM');
  await exited;
  const file = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f))
    .sort()
    .pop();
  process.stdout.write(`${file}\n${topFrames(file)}\n\nbusy time by kind:\n${framesByKind(file)}\n`);
}

async function bench(squidDir) {
  if (spawnSync(SQUID, ['-v']).status !== 0)
    throw new Error(`${SQUID} cannot run: the Squid hop needs Squid installed (or SQUID=path)`);
  const loadStart = load1();
  const started = new Date();
  const targets = await child(['targets']);
  const members = await child(['members', '1']);
  const gateway = await child(['gateway', members.ports.join(',')]);
  const textbook = await child(['textbook', String(members.ports[0])]);
  const raw = await child(['raw', String(members.ports[0])]);
  const squid = await startSquid(squidDir);
  const url = `http://127.0.0.1:${targets.http}/`;
  const tcp = `127.0.0.1:${targets.tcp}`;
  // Each route: the port the client talks to (none: the target itself), the path it asks for, and
  // the process whose CPU is the hop's (the member's own, for the member route).
  const routes = {
    direct: { port: targets.http, path: '/', tunnelPort: 0 },
    member: { port: members.ports[0], path: url, tunnelPort: members.ports[0], pid: members.pid },
    gateway: { port: gateway.port, path: url, tunnelPort: gateway.port, pid: gateway.pid },
    squid: { port: squid.port, path: url, tunnelPort: squid.port, pid: squid.pid },
    textbook: { port: textbook.port, path: url, pid: textbook.pid },
    raw: { port: raw.port, path: url, pid: raw.pid },
  };
  const names = Object.keys(routes);
  const tunnelNames = names.filter((k) => routes[k].tunnelPort !== undefined);
  const modes = { 'keep-alive': true, 'new connection': false };
  const lat = {};
  const cpu = {};
  for (const m of Object.keys(modes)) {
    lat[m] = Object.fromEntries(names.map((k) => [k, []]));
    cpu[m] = Object.fromEntries(names.map((k) => [k, { user: 0, sys: 0 }]));
  }
  const tput = Object.fromEntries(tunnelNames.map((k) => [k, []]));
  const tputCpu = Object.fromEntries(tunnelNames.map((k) => [k, { user: 0, sys: 0 }]));
  // Every process a transfer runs through (target, member, the hop, this client): where they
  // share busy cores, a route's throughput goes as the inverse of this total.
  const chainCpu = Object.fromEntries(tunnelNames.map((k) => [k, 0]));
  const chain = (k) =>
    cpuSeconds(targets.pid) +
    (k === 'direct' ? 0 : cpuSeconds(members.pid)) +
    (k === 'gateway' || k === 'squid' ? cpuSeconds(routes[k].pid) : 0) +
    selfCpu();
  // Round r starts at route r: no route always follows the same one.
  const order = (list, r) => list.map((_, i) => list[(i + r) % list.length]);
  for (let r = 0; r < ROUNDS; r++)
    for (const [m, keepAlive] of Object.entries(modes))
      for (const k of order(names, r)) {
        const { port, path, pid } = routes[k];
        const c0 = pid ? cpuTimes(pid) : undefined;
        lat[m][k].push(await latency(port, path, GETS, keepAlive));
        if (c0) {
          const c1 = cpuTimes(pid);
          cpu[m][k].user += c1.user - c0.user;
          cpu[m][k].sys += c1.sys - c0.sys;
        }
      }
  for (let r = 0; r < ROUNDS; r++)
    for (const k of order(tunnelNames, r)) {
      const { tunnelPort, pid } = routes[k];
      const c0 = pid ? cpuTimes(pid) : undefined;
      const a0 = chain(k);
      tput[k].push(await throughput(tunnelPort, tcp, TUNNEL_BYTES));
      if (c0) {
        const c1 = cpuTimes(pid);
        tputCpu[k].user += c1.user - c0.user;
        tputCpu[k].sys += c1.sys - c0.sys;
      }
      chainCpu[k] += chain(k) - a0;
    }
  const gwBefore = peakRss(gateway.pid);
  const held = await holdTunnels(gateway.port, tcp);
  const gwPeak = peakRss(gateway.pid);
  held.close();
  const choice = await choiceCost();
  const loadEnd = load1();

  const p = (m, k, q) => median(lat[m][k].map((x) => x[q]));
  const hop = (m, q) => ({
    gateway: p(m, 'gateway', q) - p(m, 'member', q),
    raw: p(m, 'raw', q) - p(m, 'member', q),
    squid: p(m, 'squid', q) - p(m, 'direct', q),
  });
  const perGet = (s) => (s * 1e6) / (ROUNDS * (GETS + WARMUP));
  const usPerGet = (m, k) => perGet(cpu[m][k].user + cpu[m][k].sys);
  const cpuCell = (m, k) =>
    `${fixed(usPerGet(m, k), 0)} (${fixed(perGet(cpu[m][k].user), 0)} + ${fixed(perGet(cpu[m][k].sys), 0)})`;
  const mibs = (k) => median(tput[k]);
  // Each round's own ratio to the member, then their median: the two transfers of a round ran
  // minutes apart at most, so a burst of load elsewhere weighs less than across the medians.
  const pairedRatio = (k) => median(tput[k].map((x, r) => x / tput.member[r]));
  const GiBs = (ROUNDS * TUNNEL_BYTES) / (1 << 30);
  const sPerGiB = (k) => (tputCpu[k].user + tputCpu[k].sys) / GiBs;
  // As "total (user + kernel)": a relay's kernel share is the copying in and out of its sockets.
  const sPerGiBCell = (k) =>
    `${fixed(sPerGiB(k), 2)} (${fixed(tputCpu[k].user / GiBs, 2)} + ${fixed(tputCpu[k].sys / GiBs, 2)})`;
  const chainPerGiB = (k) => chainCpu[k] / GiBs;
  // A target "at most Squid's": met when the gateway's figure is not above Squid's; by how much either way.
  const atMost = (gw, sq, unit, d) =>
    `${gw <= sq ? 'met' : 'missed'}: ${fixed(gw, d)} vs ${fixed(sq, d)} ${unit} (${gw <= sq ? '' : '+'}${fixed(gw - sq, d)} ${unit}${sq > 0 && gw > 0 ? `, ${fixed(gw / sq, 2)}x` : ''})`;
  const targetRows = [];
  for (const m of Object.keys(modes))
    for (const q of ['p50', 'p99']) {
      const h = hop(m, q);
      targetRows.push(
        `| ${m} GET: gateway hop's added ${q} <= Squid hop's | ${atMost(h.gateway, h.squid, 'ms', 3)} |`,
      );
    }
  for (const m of Object.keys(modes))
    targetRows.push(
      `| ${m} GET: gateway CPU per request <= Squid's | ${atMost(usPerGet(m, 'gateway'), usPerGet(m, 'squid'), 'us', 0)} |`,
    );
  const ratio = mibs('gateway') / mibs('member');
  targetRows.push(
    `| CONNECT throughput: gateway >= 0.95x one member | ${ratio >= 0.95 ? 'met' : 'missed'}: ${fixed(ratio, 2)}x (${fixed(mibs('gateway'), 0)} vs ${fixed(mibs('member'), 0)} MiB/s, ${ratio >= 0.95 ? '+' : ''}${fixed(ratio - 0.95, 2)} against 0.95x) |`,
  );
  // Not targets: what bounds the two figures above on this machine.
  const relays = ['gateway', 'textbook', 'raw', 'squid'];
  const limits = [
    `- Node's HTTP stack: per keep-alive GET, user-space CPU ${relays.map((k) => `${k} ${fixed(perGet(cpu['keep-alive'][k].user), 0)} us`).join(', ')}; kernel ${relays.map((k) => `${k} ${fixed(perGet(cpu['keep-alive'][k].sys), 0)} us`).join(', ')} (textbook: the textbook Node proxy, http.request with a keep-alive agent and pipe(), in front of the same member; raw: the raw-socket relay in front of the same member, ${fixed(usPerGet('keep-alive', 'raw') / usPerGet('keep-alive', 'squid'), 2)}x Squid's CPU per keep-alive GET and ${fixed(usPerGet('new connection', 'raw') / usPerGet('new connection', 'squid'), 2)}x per new-connection GET).`,
    `- Shared cores for CONNECT: the gateway relays a GiB with ${fixed(sPerGiB('gateway'), 2)} s of CPU (at most ${fixed(1024 / sPerGiB('gateway'), 0)} MiB/s per core of its own), the member with ${fixed(sPerGiB('member'), 2)} s; here every process of the chain shares two cores, so the route's throughput goes as its whole chain's CPU: member route ${fixed(chainPerGiB('member'), 2)} s per GiB, gateway route ${fixed(chainPerGiB('gateway'), 2)} s, a ratio of ${fixed(chainPerGiB('member') / chainPerGiB('gateway'), 2)}x.`,
  ];
  const latRows = (m) =>
    names
      .map(
        (k) =>
          `| ${k} | ${fixed(p(m, k, 'p50'))} | ${fixed(p(m, k, 'p99'))} | ${lat[m][k].map((x) => fixed(x.p50)).join(', ')} | ${routes[k].pid ? cpuCell(m, k) : '-'} |`,
      )
      .join('\n');
  const hopRows = (m) =>
    ['gateway', 'raw', 'squid']
      .map(
        (k) =>
          `| ${{ gateway: 'gateway (gateway - member)', raw: 'raw relay (raw - member)', squid: 'Squid (squid - direct)' }[k]} | ${fixed(hop(m, 'p50')[k])} | ${fixed(hop(m, 'p99')[k])} | ${cpuCell(m, k)} |`,
      )
      .join('\n');
  const squidVersion =
    /Version (\S+)/.exec(spawnSync(SQUID, ['-v'], { encoding: 'utf8' }).stdout)?.[1] ?? '?';
  const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'})`;
  const md = `# Gateway benchmarks

Command: \`pnpm bench\` (or \`pnpm bench:gateway\` in apps/operator, after \`pnpm build\`). Run
${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, Squid ${squidVersion}, ${machine}, loopback. 1-minute load
average ${loadStart} at the start, ${loadEnd} at the end (other work shared the cores: the hops are
differences of medians of alternating rounds, and CPU per request is read from /proc; load still
moves it between runs, so compare processes within one run). ${ROUNDS} rounds; each round runs every route in turn (the order rotating).

Routes: **direct** (client to the target), **member** (one proxy-chain member alone, provider-local's
Node engine), **gateway** (the pool gateway in front of that same member, the only one in its pool),
**squid** (a plain Squid forward proxy in front of the target: no cache, no peers, no access log).
**textbook** (GETs only: the textbook Node forward proxy in front of the same member, for what Node's
HTTP stack costs by itself). **raw** (GETs only: a minimal HTTP/1.1 relay on raw sockets in front of
the same member, \`bench/gateway/raw-relay.mjs\`, for what a Node hop costs around the http module).
Each relay runs in its own process. The gateway's hop is gateway minus
member; Squid's hop is squid minus direct. CPU per request is "total (user + kernel)" in us.

## Targets

| target | result |
| --- | --- |
${targetRows.join('\n')}

What limits them here:

${limits.join('\n')}

${Object.keys(modes)
  .map(
    (
      m,
    ) => `## Small GETs, ${m}: ${GETS.toLocaleString('en')} sequential requests per round (after ${WARMUP} warm-up)

| route | p50 (ms) | p99 (ms) | p50 per round | relay CPU per request (us) |
| --- | --- | --- | --- | --- |
${latRows(m)}

| hop | added p50 (ms) | added p99 (ms) | hop process CPU per request (us) |
| --- | --- | --- | --- |
${hopRows(m)}
`,
  )
  .join('\n')}
## CONNECT throughput, ${TUNNEL_BYTES / MiB} MiB through one tunnel (MiB/s)

| route | median | all rounds | vs member | vs member, median of the rounds' ratios | relay CPU per GiB, user + kernel (s) | whole chain CPU per GiB (s) |
| --- | --- | --- | --- | --- | --- | --- |
${tunnelNames
  .map(
    (k) =>
      `| ${k} | ${fixed(mibs(k), 0)} | ${tput[k].map((x) => fixed(x, 0)).join(', ')} | ${fixed(mibs(k) / mibs('member'), 2)}x | ${fixed(pairedRatio(k), 2)}x | ${routes[k].pid ? sPerGiBCell(k) : '-'} | ${fixed(chainPerGiB(k), 2)} |`,
  )
  .join('\n')}

On a machine where every process shares two cores, throughput is bounded by the CPU of the whole
chain (target, member, gateway, client); requests per second of whole routes are not a target here.

## 5,000 tunnels held open through the gateway

| time to open all (ms) | gateway peak RSS before (MB) | gateway peak RSS with 5,000 open (MB) | target |
| --- | --- | --- | --- |
| ${fixed(held.ms, 0)} | ${fixed(gwBefore, 0)} | ${fixed(gwPeak, 0)} | < 300 MB |

## Member choice, ns per choice (best of 3 runs of 200,000 choices, half the members busy)

| members | round-robin | least-connections | new session | known session |
| --- | --- | --- | --- | --- |
${choice.map((r) => `| ${r.n} | ${fixed(r['round-robin'], 0)} | ${fixed(r['least-connections'], 0)} | ${fixed(r['new session'], 0)} | ${fixed(r['known session'], 0)} |`).join('\n')}

Target: flat as the pool grows. A session's member is one lookup in a Maglev table built when the
members change (65,537 slots up to 6,553 members); a new and a known session cost the same but for
the first sighting's bookkeeping. Round-robin is O(1); least-connections scans the members until
an idle one (here the second).
`;
  const out = join(here, '..', 'gateway-results.md');
  writeFileSync(out, md);
  // The repository's formatter aligns the tables (the lint checks Markdown too).
  spawnSync(join(here, '../../../../node_modules/.bin/biome'), ['format', '--write', out], {
    stdio: 'ignore',
  });
  process.stdout.write(readFileSync(out, 'utf8'));
}

const squidDir = profileDir ? undefined : mkdtempSync(join(tmpdir(), 'gw-bench-squid-'));
// Stopped by a signal (Ctrl-C, a timeout), the run still takes its processes and files with it.
for (const sig of ['SIGINT', 'SIGTERM'])
  process.once(sig, () => {
    for (const c of children) c.kill('SIGKILL');
    if (squidDir) setTimeout(() => rmSync(squidDir, { recursive: true, force: true }), 200);
    setTimeout(() => process.exit(130), 300);
  });
try {
  if (profileDir) await profile(profileDir);
  else {
    // Squid drops to its effective user when it can; the directory must stay writable to it.
    spawnSync('chmod', ['777', squidDir]);
    await bench(squidDir);
  }
} finally {
  for (const c of children) c.kill('SIGKILL');
  if (squidDir) {
    await new Promise((r) => setTimeout(r, 200));
    rmSync(squidDir, { recursive: true, force: true });
  }
}
