#!/usr/bin/env node
// Why the config schema is a module of our own and not zod: installed size and cold import CPU
// of zod, zod/mini and this package's schema module (the built package), plus the message each
// gives for the same typo. Import CPU is the median over paired runs of (import, empty process).
// Writes bench/results.md. Run after `pnpm build`: node bench/schema-choice.mjs
import { spawnSync } from 'node:child_process';
import { readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, '..');
const RUNS = 15;

function du(dir) {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? du(p) : e.isFile() ? statSync(p).size : 0;
  }
  return total;
}

function cpuMs(code) {
  const r = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `${code}\nconst u = process.cpuUsage(); console.log(u.user + u.system);`],
    { cwd: pkg, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(r.stderr);
  return Number(r.stdout.trim().split('\n').at(-1)) / 1000;
}

function importCost(spec) {
  const diffs = [];
  for (let i = 0; i < RUNS; i++) diffs.push(cpuMs(`await import(${JSON.stringify(spec)});`) - cpuMs(''));
  diffs.sort((a, b) => a - b);
  return Math.max(0, diffs[Math.floor(diffs.length / 2)]);
}

const require = createRequire(join(pkg, 'package.json'));
const zodDir = dirname(realpathSync(require.resolve('zod/package.json')));
const ours = join(pkg, 'dist/index.js');
const rows = [
  ['zod', `${(du(zodDir) / 1e6).toFixed(1)} MB`, importCost('zod')],
  ['zod/mini', `${(du(zodDir) / 1e6).toFixed(1)} MB (same package)`, importCost('zod/mini')],
  [
    '@egress-proxies/provider-utils (whole package)',
    `${(du(join(pkg, 'dist')) / 2 / 1e6).toFixed(2)} MB (ESM or CJS half of dist)`,
    importCost(pathToFileURL(ours).href),
  ],
];

// The same typo through both, as a providers file would report it.
const z = await import('zod');
const { s } = await import(pathToFileURL(ours).href);
const zodIssue = z.strictObject({ diskSizeGb: z.int() }).safeParse({ diskSizeGB: 1, diskSizeGb: 1 }).error
  .issues[0];
const ourIssue = s.object({ diskSizeGb: s.int() }).validate({ diskSizeGB: 1, diskSizeGb: 1 }).issues[0];

const lines = [
  `Measured by \`node bench/schema-choice.mjs\` on ${new Date().toISOString().slice(0, 10)} (Node ${process.version}): installed size on disk, and import CPU (user+system) above an empty \`node -e\`, median of ${RUNS} paired runs.`,
  '',
  '| schema | installed | import CPU |',
  '| --- | --- | --- |',
  ...rows.map(([n, size, ms]) => `| ${n} | ${size} | ${ms.toFixed(1)} ms |`),
  '',
  'The same typo (`diskSizeGB` for `diskSizeGb`):',
  '',
  `- zod: \`${zodIssue.path.join('.') || '(root)'}: ${zodIssue.message}\``,
  `- ours: \`${ourIssue.path.join('.')}: ${ourIssue.message}\``,
  '',
];
writeFileSync(join(here, 'results.md'), lines.join('\n'));
console.log(lines.join('\n'));
