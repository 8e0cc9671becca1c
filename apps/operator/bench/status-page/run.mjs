// The status page at 1,000 members (part of `pnpm bench`; alone: `node bench/status-page/run.mjs`
// in apps/operator after `pnpm build`). One pool of 1,000 members behind a gateway, 50 events and
// a provider, as under `up`; each update, 10 members (1%) carried new traffic.
//   server: the page server's cost of one update, CPU time per update of building the data from
//           the pools, the gateway's counters and the store (StandaloneStatusPage.snapshot) and
//           turning it into the patch a live page is sent (UpdateStream: each member's JSON
//           compared with what was sent), against JSON.stringify of the same data alone (the
//           floor: a page sent the whole data each time pays at least that), and the bytes sent
//           per update against the whole data's.
//   browser: the page in the Debian package's headless Chromium, fed the same updates through the
//           real server: the time to apply one update (JSON.parse and the DOM work, and until the
//           frame after it), read from the page's own performance measures, against the first
//           update, which builds all 1,000 rows (what every update cost when the page rebuilt the
//           table each time). Medians over the updates; reported, never asserted.
// Writes bench/status-page-results.md.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM as DEBIAN_CHROMIUM, launchChromium } from '../../test/support/chromium.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const MEMBERS = Number(process.env.PAGE_BENCH_MEMBERS ?? 1000);
const CHANGED = Math.max(1, Math.round(MEMBERS / 100));
const SERVER_UPDATES = Number(process.env.PAGE_BENCH_UPDATES ?? 300);
const BROWSER_UPDATES = Number(process.env.PAGE_BENCH_BROWSER_UPDATES ?? 30);
const CHROMIUM = process.env.CHROMIUM ?? DEBIAN_CHROMIUM;

const op = await import('../../dist/index.js');

/** A pool of `n` members, its gateway's counters and a store with 50 events and one provider. */
function fleet(n) {
  const members = [];
  const stats = new Map();
  const proxies = new Map();
  const created = Date.now() - 3_600_000;
  for (let i = 0; i < n; i++) {
    const name = `crawl-${String(i).padStart(5, '0')}`;
    const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    members.push({
      name,
      provider: 'gce',
      ip,
      port: 3128,
      egressIP: `203.0.${(i >> 8) & 255}.${i & 255}`,
      assignedEgress: { ipv4: `203.0.${(i >> 8) & 255}.${i & 255}` },
      createdAt: new Date(created + i * 1000).toISOString(),
      ready: true,
      cooledDown: false,
    });
    stats.set(name, { http: 0, connect: 0, bytesUp: 0, bytesDown: 0, failures: new Map() });
    proxies.set(`default/${name}`, {
      metadata: { name },
      spec: { placement: { zone: `europe-west1-${'bcd'[i % 3]}` } },
    });
  }
  const view = {
    key: 'default/crawl',
    desired: n,
    replicas: n,
    ready: n,
    updated: n,
    gateway: 'http://127.0.0.1:8080',
    members,
  };
  const gateway = { stats: { members: stats }, members: { cooledDown: () => [] } };
  const none = () => () => {};
  const pools = { views: () => [view], gateway: () => gateway, onMemberChange: none, onScale: none };
  const events = Array.from({ length: 50 }, (_, i) => ({
    key: `default/${members[i % n].name}`,
    type: 'Normal',
    reason: 'Ready',
    message: `probe through ${members[i % n].ip}:3128 passed`,
    time: new Date(created + i * 1000).toISOString(),
  }));
  const health = [
    {
      name: 'gce',
      status: {
        type: 'gce',
        ready: true,
        targets: [
          {
            target: 'project-1',
            address: 'x',
            ready: true,
            reason: 'Ready',
            lastCheckTime: new Date().toISOString(),
          },
        ],
      },
    },
  ];
  const store = { get: (k) => proxies.get(k), events, providerHealth: () => health, onDisplayChange: none };
  let turn = 0;
  return {
    pools,
    store,
    /** A new event and no traffic: an update that changes no member row. */
    event() {
      events.shift();
      events.push({
        key: 'default/crawl',
        type: 'Normal',
        reason: 'Steady',
        message: `tick ${turn++}`,
        time: new Date().toISOString(),
      });
    },
    /** Traffic on the next 1% of the members, round robin. */
    traffic() {
      for (let j = 0; j < CHANGED; j++) {
        const s = stats.get(members[(turn + j) % n].name);
        s.http += 7;
        s.bytesDown += 70_000;
        s.bytesUp += 3_000;
      }
      turn = (turn + CHANGED) % n;
    },
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : Number.NaN;
};
const cpuMicros = (fn, rounds) => {
  const start = process.cpuUsage();
  for (let i = 0; i < rounds; i++) fn();
  const d = process.cpuUsage(start);
  return (d.user + d.system) / rounds;
};

/** The server's CPU per update against JSON.stringify of the same data, best of 5 runs each, turns taken. */
function server() {
  const f = fleet(MEMBERS);
  const page = new op.StandaloneStatusPage(f.pools, f.store);
  const stream = new op.UpdateStream();
  let size = 0;
  const update = () => {
    f.traffic();
    const patch = stream.next(page.snapshot());
    size = patch ? JSON.stringify(patch).length : 0;
  };
  const data = page.snapshot();
  const floor = () => JSON.stringify(data);
  for (let i = 0; i < 50; i++) {
    update();
    floor();
  }
  const ours = [];
  const base = [];
  for (let r = 0; r < 5; r++) {
    ours.push(cpuMicros(update, SERVER_UPDATES));
    base.push(cpuMicros(floor, SERVER_UPDATES));
  }
  page.close();
  return { ours: Math.min(...ours), floor: Math.min(...base), size, whole: floor().length };
}

/** The page in Chromium over the real server: the per-update and first-render costs, from its measures. */
async function browser() {
  if (!existsSync(CHROMIUM)) return { skipped: `${CHROMIUM} is missing (the chromium Debian package)` };
  const f = fleet(MEMBERS);
  const source = new op.StandaloneStatusPage(f.pools, f.store);
  const page0 = await op.startStatusPage({
    host: '127.0.0.1',
    port: 0,
    snapshot: () => source.snapshot(),
    intervalMs: 50,
  });
  // Chromium's crash reports and caches go in a dir of the run's, not the home directory.
  const xdg = mkdtempSync(join(tmpdir(), 'ep-bench-page-'));
  const b = await launchChromium(xdg, CHROMIUM);
  try {
    const page = await b.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(page0.url);
    await page
      .locator('table[data-pool="default/crawl"] tbody tr')
      .nth(MEMBERS - 1)
      .waitFor({ timeout: 120_000 });
    const count = (name) => page.evaluate((n) => performance.getEntriesByName(n).length, name);
    await waitFor(async () => (await count('status-page-frame')) >= 1);
    const durations = () =>
      page.evaluate(() =>
        ['status-page-apply', 'status-page-frame'].map((n) =>
          performance.getEntriesByName(n).map((e) => e.duration),
        ),
      );
    // Updates that change rows and updates that change none (a new event only) take turns.
    const rowless = new Set();
    for (let i = 0; i < 2 * BROWSER_UPDATES; i++) {
      const seen = await count('status-page-frame');
      if (i % 2) {
        f.event();
        rowless.add(seen);
      } else f.traffic();
      await waitFor(async () => (await count('status-page-frame')) > seen);
    }
    const [allApply, allFrame] = await durations();
    const pick = (xs, want) => xs.filter((_, i) => i > 0 && rowless.has(i) === want);
    // The first update built every row; the others changed 1% of them, or none.
    const apply = [allApply[0], ...pick(allApply, false)];
    const frame = [allFrame[0], ...pick(allFrame, false)];
    const noRows = { apply: median(pick(allApply, true)), frame: median(pick(allFrame, true)) };
    // The members the page shows now carry the last counters: it kept up.
    const shown = await page.locator('table[data-pool="default/crawl"] tbody tr').count();
    return {
      firstApply: apply[0],
      firstFrame: frame[0],
      apply: median(apply.slice(1)),
      frame: median(frame.slice(1)),
      updates: apply.length - 1,
      noRows,
      shown,
      version: b.version(),
    };
  } finally {
    await b.close();
    await page0.close();
    source.close();
    rmSync(xdg, { recursive: true, force: true });
  }
}

async function waitFor(check, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('the page did not apply an update within 60 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const load = loadavg()[0].toFixed(1);
const s = server();
const w = await browser();
const loadEnd = loadavg()[0].toFixed(1);
const ms = (x) => `${x.toFixed(1)} ms`;
const lines = [
  '# Status page at 1,000 members',
  '',
  `\`pnpm bench\` (alone: \`node bench/status-page/run.mjs\` in apps/operator), ${new Date().toISOString().slice(0, 16)}Z, ${cpus().length} cores, 1-minute load average ${load} at the start, ${loadEnd} at the end. One pool of ${MEMBERS} members, 50 events, one provider; ${CHANGED} members (1%) get traffic between updates.`,
  '',
  '| Server, per update | ours | floor: JSON.stringify of the same data | ratio |',
  '|---|---|---|---|',
  `| CPU time (best of 5 runs of ${SERVER_UPDATES}) | ${(s.ours / 1000).toFixed(2)} ms | ${(s.floor / 1000).toFixed(2)} ms | ${(s.ours / s.floor).toFixed(2)}x |`,
  `| Bytes sent per update | ${(s.size / 1024).toFixed(1)} KiB (a patch) | ${(s.whole / 1024).toFixed(0)} KiB (the whole data) | ${(s.size / s.whole).toPrecision(2)}x |`,
  '',
];
if (w.skipped) lines.push(`Browser: not measured: ${w.skipped}.`);
else
  lines.push(
    `| Chromium ${w.version}, one update (median of ${w.updates}) | an update (1% of rows changed) | the first update (all ${w.shown} rows built) | ratio |`,
    '|---|---|---|---|',
    `| JSON.parse and DOM work (\`status-page-apply\`) | ${ms(w.apply)} | ${ms(w.firstApply)} | ${(w.apply / w.firstApply).toPrecision(2)}x |`,
    `| until the frame after it (\`status-page-frame\`) | ${ms(w.frame)} | ${ms(w.firstFrame)} | ${(w.frame / w.firstFrame).toPrecision(2)}x |`,
  );
if (!w.skipped)
  lines.push(
    '',
    `An update that changes no member row (a new event only), taking turns with those in the same run: ${ms(w.noRows.apply)} applying, ${ms(w.noRows.frame)} until the frame after it.`,
  );
lines.push('');
writeFileSync(join(here, '..', 'status-page-results.md'), lines.join('\n'));
console.log(lines.join('\n'));
