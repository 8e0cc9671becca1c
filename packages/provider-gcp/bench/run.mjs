#!/usr/bin/env node
// Footprint of this package's thin client against the Compute SDK, measured in one run:
// install size (a clean npm install of each into its own temporary prefix), cold import time
// (a fresh node process per sample, spawn to exit) and the peak RSS of that process.
//
//   pnpm bench            (from this package; needs `pnpm build` first and registry access)
//   BENCH_RUNS=7 pnpm bench
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = join(here, '..');
const runs = Number(process.env.BENCH_RUNS ?? 5);
const SDK = '@google-cloud/compute@7.8.0';
const THIN = ['google-auth-library@10.9.1', 'undici@7.30.2'];

function du(dir) {
  let total = 0;
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop();
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.isFile()) total += statSync(p).size;
    }
  }
  return total;
}

function countPackages(nodeModules) {
  let n = 0;
  for (const e of readdirSync(nodeModules, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name.startsWith('.')) continue;
    if (e.name.startsWith('@')) n += readdirSync(join(nodeModules, e.name)).length;
    else n += 1;
  }
  return n;
}

function install(specs) {
  const prefix = mkdtempSync(join(tmpdir(), 'gcp-footprint-'));
  writeFileSync(join(prefix, 'package.json'), '{"name":"footprint","private":true}\n');
  execFileSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-save', '--loglevel=error', ...specs],
    { cwd: prefix, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const nm = join(prefix, 'node_modules');
  return { prefix, bytes: du(nm), packages: countPackages(nm) };
}

/** One cold import: wall time from spawn to exit, and the child's own peak RSS. */
function sample(cwd, code) {
  const script = `${code};process.stdout.write(JSON.stringify({rss:process.resourceUsage().maxRSS}))`;
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--no-warnings', '-e', script], { cwd, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`sample failed in ${cwd}: ${r.stderr}`);
  return { ms, rssKb: JSON.parse(r.stdout).rss };
}

/** A markdown table padded the way the repository's formatter writes it (numbers right-aligned). */
function table(header, body) {
  const widths = header.map((h, i) => Math.max(3, h.length, ...body.map((r) => r[i].length)));
  const cell = (v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]));
  const sep = widths.map((w, i) => (i === 0 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`));
  return [header, sep, ...body].map((r, k) => `| ${(k === 1 ? r : r.map(cell)).join(' | ')} |`);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

function measure(cwd, code) {
  sample(cwd, code); // warm the file cache: "cold" means a fresh process, not a cold disk
  const xs = Array.from({ length: runs }, () => sample(cwd, code));
  return { ms: median(xs.map((x) => x.ms)), rssMb: median(xs.map((x) => x.rssKb)) / 1024 };
}

if (!existsSync(join(pkgDir, 'dist', 'index.cjs'))) {
  console.error('dist/index.cjs is missing: run `pnpm build` first');
  process.exit(1);
}

console.log(`installing ${SDK} and ${THIN.join(' + ')} into temporary prefixes...`);
const sdk = install([SDK]);
const thin = install(THIN);
try {
  const rows = [
    { name: 'node -e 0 (floor)', install: undefined, ...measure(thin.prefix, '0') },
    {
      name: `${SDK} (baseline)`,
      install: sdk,
      ...measure(sdk.prefix, "require('@google-cloud/compute')"),
    },
    {
      name: `${THIN.join(' + ')}`,
      install: thin,
      ...measure(thin.prefix, "require('google-auth-library');require('undici')"),
    },
    {
      name: '@egress-proxies/provider-gcp (dist, with its deps)',
      install: undefined,
      ...measure(pkgDir, `require(${JSON.stringify(join(pkgDir, 'dist', 'index.cjs'))})`),
    },
  ];
  const base = rows[1];
  const fmtMb = (b) => (b / 1e6).toFixed(1);
  const header = [
    'what',
    'installed packages',
    'node_modules MB',
    'cold import ms',
    'vs baseline',
    'peak RSS MB',
    'vs baseline',
  ];
  const body = rows.map((r) => [
    r.name,
    r.install ? String(r.install.packages) : '–',
    r.install ? fmtMb(r.install.bytes) : '–',
    r.ms.toFixed(0),
    `${(r.ms / base.ms).toFixed(2)}x`,
    r.rssMb.toFixed(0),
    `${(r.rssMb / base.rssMb).toFixed(2)}x`,
  ]);
  const lines = [
    `# provider-gcp footprint`,
    '',
    `Node ${process.version}, ${runs} samples per row (median), one run on this machine. Baseline: ${SDK}.`,
    'Install size is a clean `npm install` of the named packages into an empty prefix.',
    '',
    ...table(header, body),
  ];
  lines.push('', `Install size ratio (thin / baseline): ${(thin.bytes / sdk.bytes).toFixed(3)}x`, '');
  const md = lines.join('\n');
  console.log(md);
  writeFileSync(join(here, 'results.md'), md);
} finally {
  rmSync(sdk.prefix, { recursive: true, force: true });
  rmSync(thin.prefix, { recursive: true, force: true });
}
