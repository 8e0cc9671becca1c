// Seed ISO build time: in-process buildSeedIso against spawning genisoimage for the same
// files, measured in one run. Usage: pnpm --filter @egress-proxies/nocloud bench
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist', 'index.js');
if (!existsSync(dist)) {
  console.error(
    'dist/index.js is missing: build the package first (pnpm --filter @egress-proxies/nocloud build)',
  );
  process.exit(1);
}
const { buildSeedIso, guestAgentScript, instanceIdFor, metaData } = await import('../dist/index.js');

if (spawnSync('genisoimage', ['-version'], { stdio: 'ignore' }).status !== 0) {
  console.error('genisoimage is not installed (Debian package genisoimage); it is the baseline');
  process.exit(1);
}

// A typical seed: 4 KiB of cloud-config user-data, the meta-data and the default vendor-data.
const line = '  - echo "configure the egress proxy listener and its allow-list"\n';
const userData = `#cloud-config\nruncmd:\n${line.repeat(Math.ceil(4096 / line.length))}`.slice(0, 4096);
const seed = {
  userData,
  metaData: metaData({ instanceId: instanceIdFor('proxy-bench', 'uid-0001'), hostname: 'proxy-bench' }),
  vendorData: guestAgentScript(),
};

function measure(fn, { minMs, minRuns, warmup }) {
  for (let i = 0; i < warmup; i++) fn();
  const samples = [];
  const start = process.hrtime.bigint();
  while (samples.length < minRuns || Number(process.hrtime.bigint() - start) / 1e6 < minMs) {
    const t0 = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  samples.sort((a, b) => a - b);
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return { runs: samples.length, mean, median: samples[Math.floor(samples.length / 2)] };
}

const ours = measure(() => buildSeedIso(seed), { minMs: 2000, minRuns: 1000, warmup: 200 });

const dir = mkdtempSync(join(tmpdir(), 'nocloud-bench-'));
let theirs;
try {
  writeFileSync(join(dir, 'user-data'), seed.userData);
  writeFileSync(join(dir, 'meta-data'), seed.metaData);
  writeFileSync(join(dir, 'vendor-data'), seed.vendorData);
  // The image goes to stdout, so the baseline, like ours, ends with the bytes in memory.
  const args = ['-quiet', '-J', '-r', '-V', 'cidata', dir];
  theirs = measure(
    () => {
      const r = spawnSync('genisoimage', args, { maxBuffer: 64 * 1024 * 1024 });
      if (r.status !== 0) throw new Error(`genisoimage failed: ${r.stderr}`);
    },
    { minMs: 2000, minRuns: 30, warmup: 3 },
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const fmt = (n, d = 3) => n.toFixed(d);
const ratio = theirs.median / ours.median;
const meanRatio = theirs.mean / ours.mean;
const header = [
  'Build of a typical seed (4 KiB user-data)',
  'runs',
  'median ms/build',
  'mean ms/build',
  'builds/s',
];
const rows = [
  ['buildSeedIso (in-process)', ours],
  ['genisoimage -J -r -V cidata (spawned)', theirs],
].map(([name, r]) => [name, String(r.runs), fmt(r.median), fmt(r.mean), fmt(1000 / r.mean, 0)]);
const table = [
  markdownTable(header, rows),
  '',
  `**buildSeedIso is ${fmt(ratio, 0)}x faster** than spawning genisoimage, median against median ` +
    `(${fmt(meanRatio, 0)}x mean against mean, which includes GC pauses); target: at least 10x.`,
].join('\n');

/** An aligned table (first column left, the rest right), as the repository's formatter writes it. */
function markdownTable(head, body) {
  const widths = head.map((h, i) => Math.max(3, h.length, ...body.map((r) => r[i].length)));
  const cell = (v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]));
  const line = (cells) => `| ${cells.map(cell).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (i === 0 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`)).join(' | ')} |`;
  return [line(head), rule, ...body.map(line)].join('\n');
}

const machine = `Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${process.platform}`;
console.log(table);
console.log(`\n${machine}`);
writeFileSync(
  join(here, 'results.md'),
  `# Benchmark results\n\nCommand: \`pnpm --filter @egress-proxies/nocloud bench\` (after a build).\n\n${table}\n\nMeasured ${new Date().toISOString().slice(0, 10)} on ${machine}.\n`,
);
