#!/usr/bin/env node
// The footprint section of `pnpm bench`: for every published package, packed as it is published
// (`pnpm pack`), the size `npm install --ignore-scripts` puts on disk with its dependencies, and
// the CPU a cold `import()` costs above `node -e 0` (the median of paired runs, so a machine
// whose load changes during the run shifts both sides of each pair alike), beside the figures
// the footprint issue reported, the last measured ones and the targets. Writes
// bench/footprint.md. Needs the packages built.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pnpmCommand, publishable, root } from './workspace.mjs';

const RUNS = 9;
const MB = 1e6;
// The figures the footprint issue reported for the same measurement (installed MB, import ms); empty where it gave none.
const PREVIOUS = {
  '@egress-proxies/contract': [12, 280],
  '@egress-proxies/provider-kvm': [18, undefined],
  '@egress-proxies/provider-kvm2': [18, 300],
  '@egress-proxies/provider-proxmox': [16, 510],
  '@egress-proxies/provider-local': [14, 340],
  '@egress-proxies/provider-gcp': [27, 600],
  '@egress-proxies/provider-kubernetes': [85, undefined],
};
// The figures of the last run (bench/footprint.md, 2026-12-04, before the providers loaded their
// backend clients and Node's stream-bearing built-ins on first use).
const LAST = {
  '(an empty ESM package: the floor)': [undefined, 12],
  '@egress-proxies/conformance': [45, 48],
  '@egress-proxies/contract': [0.2, 13],
  '@egress-proxies/keyedlock': [0.1, 17],
  '@egress-proxies/kvm-common': [6.9, 50],
  'libvirt-rpc-ts': [0.8, 23],
  '@egress-proxies/nocloud': [0.2, 21],
  '@egress-proxies/provider-gcp': [16, 31],
  '@egress-proxies/provider-kubernetes': [66, 32],
  '@egress-proxies/provider-kvm': [7.0, 61],
  '@egress-proxies/provider-kvm2': [7.0, 54],
  '@egress-proxies/provider-local': [3.8, 38],
  '@egress-proxies/provider-proxmox': [5.2, 45],
  '@egress-proxies/provider-utils': [1.9, 18],
  '@egress-proxies/operator': [111, 1513],
  'egress-proxies --help': [undefined, 44],
};
const TARGETS = {
  '@egress-proxies/contract': [1, 10],
  '@egress-proxies/provider-kvm': [10, 50],
  '@egress-proxies/provider-kvm2': [10, 50],
  '@egress-proxies/provider-proxmox': [10, 50],
  '@egress-proxies/provider-local': [10, 50],
  '@egress-proxies/provider-gcp': [20, 100],
  '@egress-proxies/provider-kubernetes': [undefined, 100],
};

function du(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) total += du(p);
    else if (entry.isFile()) total += statSync(p).size;
  }
  return total;
}

/** CPU (user + system) of one node process that runs `code`, as the process reports it. */
function cpuMs(code, cwd) {
  const r = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `${code}\nconst u = process.cpuUsage(); console.log(JSON.stringify(u));`],
    { cwd, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`node failed in ${cwd}: ${r.stderr}`);
  const u = JSON.parse(r.stdout.trim().split('\n').at(-1));
  return (u.user + u.system) / 1000;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The median over RUNS pairs of (`code`, an empty process) of their CPU difference. */
function importCost(code, cwd) {
  const diffs = [];
  for (let i = 0; i < RUNS; i++) diffs.push(cpuMs(code, cwd) - cpuMs('', cwd));
  return Math.max(0, median(diffs));
}

// CPU figures depend on what else the machine runs: the 1-minute load average is written down
// at the start and the end of the run.
const loadAtStart = loadavg()[0];
const tmp = mkdtempSync(join(tmpdir(), 'ep-footprint-'));
const rows = [];
try {
  const [pnpm, pre] = pnpmCommand();
  const packs = join(tmp, 'packs');
  mkdirSync(packs);
  const tarballs = {};
  for (const p of publishable()) {
    const r = spawnSync(pnpm, [...pre, 'pack', '--pack-destination', packs], {
      cwd: p.dir,
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`pnpm pack failed in ${p.rel}: ${r.stderr}`);
    const file = r.stdout.trim().split('\n').at(-1);
    tarballs[p.manifest.name] = `file:${file}`;
  }
  for (const p of publishable()) {
    const name = p.manifest.name;
    const dir = join(tmp, name.replace(/[@/]/g, '_'));
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ private: true, dependencies: { [name]: tarballs[name] }, overrides: tarballs }),
    );
    const r = spawnSync(
      'npm',
      ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    );
    if (r.status !== 0) throw new Error(`npm install failed for ${name}: ${r.stderr}`);
    const size = du(join(dir, 'node_modules')) / MB;
    const cpu = importCost(`await import(${JSON.stringify(name)});`, dir);
    rows.push({ name, size, cpu });
    console.log(`${name}: ${size.toFixed(1)} MB, ${cpu.toFixed(0)} ms`);
  }
  // The floor: an empty ESM package, installed and imported the same way. Loading any package
  // costs this much here, so a package's own share is its figure minus this one.
  const emptyDir = join(tmp, '_empty');
  const emptyPkg = join(emptyDir, 'node_modules', 'ep-empty');
  mkdirSync(emptyPkg, { recursive: true });
  writeFileSync(
    join(emptyPkg, 'package.json'),
    JSON.stringify({ name: 'ep-empty', type: 'module', exports: './index.js' }),
  );
  writeFileSync(join(emptyPkg, 'index.js'), 'export {};\n');
  rows.unshift({
    name: '(an empty ESM package: the floor)',
    size: undefined,
    cpu: importCost("await import('ep-empty');", emptyDir),
  });
  // The CLI's help, from the operator's install: what a user waits for first.
  const opDir = join(tmp, '_egress-proxies_operator');
  const main = join(opDir, 'node_modules/@egress-proxies/operator/dist/main.js');
  // main.js runs its command on import; its output is swallowed, then restored for the figure.
  const helpCode = [
    `process.argv = [process.argv[0], ${JSON.stringify(main)}, '--help'];`,
    'const write = process.stdout.write.bind(process.stdout);',
    'process.stdout.write = () => true;',
    `await import(${JSON.stringify(main)});`,
    'await new Promise((r) => setTimeout(r, 10));',
    'process.stdout.write = write;',
  ].join('\n');
  const help = importCost(helpCode, opDir);
  rows.push({ name: 'egress-proxies --help', size: undefined, cpu: help, helpTarget: 300 });
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

const loads = `1-minute load average ${loadAtStart.toFixed(2)} at the start, ${loadavg()[0].toFixed(2)} at the end`;
const fmt = (v, unit) => (v === undefined ? '-' : `${v.toFixed(v < 10 ? 1 : 0)} ${unit}`);
const lines = [
  `Measured by \`node scripts/footprint.mjs\` (part of \`pnpm bench\`) on ${new Date().toISOString().slice(0, 10)}: each package packed with \`pnpm pack\`, installed alone with \`npm install --ignore-scripts\` (its @egress-proxies dependencies from the same packs), size of \`node_modules\`; import = CPU (user+system) of \`node -e "await import(pkg)"\` minus that of an empty \`node -e\` run next to it, median of ${RUNS} such pairs; ${loads}. "last": the previous run (2026-12-04, before the lazy client loading); "before": the figures the footprint issue reported for the same measurement.`,
  '',
  '| package | installed | last | before | target | import CPU | last | before | target |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
];
for (const r of rows) {
  const [prevSize, prevCpu] = PREVIOUS[r.name] ?? [];
  const [lastSize, lastCpu] = LAST[r.name] ?? [];
  const [tSize, tCpu] = TARGETS[r.name] ?? [undefined, r.helpTarget];
  const mark = (v, t) => (t === undefined || v === undefined ? '' : v <= t ? ' ok' : ' MISS');
  lines.push(
    `| ${r.name} | ${fmt(r.size, 'MB')}${mark(r.size, tSize)} | ${fmt(lastSize, 'MB')} | ${fmt(prevSize, 'MB')} | ${fmt(tSize, 'MB')} | ${fmt(r.cpu, 'ms')}${mark(r.cpu, tCpu)} | ${fmt(lastCpu, 'ms')} | ${fmt(prevCpu, 'ms')} | ${fmt(tCpu, 'ms')} |`,
  );
}
mkdirSync(join(root, 'bench'), { recursive: true });
// What holds each remaining miss is written by hand beside the table and carried into it.
const notes = join(root, 'bench', 'footprint-notes.md');
const tail = existsSync(notes) ? `\n${readFileSync(notes, 'utf8')}` : '';
writeFileSync(join(root, 'bench', 'footprint.md'), `${lines.join('\n')}\n${tail}`);
console.log(lines.join('\n'));
