#!/usr/bin/env node
// `pnpm bench`: builds, runs every package's benchmark (each measures against its named
// baseline in the same run and writes bench/results.md in its package), then gathers the
// tables into bench/RESULTS.md with the date and the machine they were measured on.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { pnpmCommand, root, workspacePackages } from './workspace.mjs';

// `--gather` only regathers what the packages' last runs wrote (after `pnpm --filter X bench`).
const gatherOnly = process.argv.includes('--gather');
const only = process.argv.slice(2).filter((a) => a !== '--gather');
const filters = only.flatMap((f) => ['--filter', f]);
const [pnpm, pre] = pnpmCommand();
const r = gatherOnly
  ? { status: 0 }
  : spawnSync(pnpm, [...pre, 'exec', 'turbo', 'run', 'bench', '--concurrency=1', ...filters], {
      cwd: root,
      stdio: 'inherit',
    });
// The footprint of the published packages, measured on their packed tarballs (not per package).
const footprint =
  gatherOnly || only.length > 0
    ? { status: 0 }
    : spawnSync(process.execPath, [join(root, 'scripts/footprint.mjs')], { cwd: root, stdio: 'inherit' });
const sections = [];
const footprintFile = join(root, 'bench', 'footprint.md');
// footprint.md carries the hand-written notes (bench/footprint-notes.md) under its table.
if (existsSync(footprintFile)) {
  sections.push(`## Footprint\n\n${readFileSync(footprintFile, 'utf8').trim()}\n`);
}
for (const p of workspacePackages()) {
  if (!p.manifest.scripts?.bench) continue;
  const file = join(p.dir, 'bench', 'results.md');
  if (!existsSync(file)) {
    sections.push(`## ${p.manifest.name}\n\nNo results: the benchmark did not write bench/results.md.\n`);
    continue;
  }
  // A package may write further tables beside it (bench/<name>-results.md, e.g. the operator's gateway).
  const more = readdirSync(join(p.dir, 'bench'))
    .filter((f) => f.endsWith('-results.md'))
    .sort()
    .map((f) => `\n${readFileSync(join(p.dir, 'bench', f), 'utf8').trim()}\n`);
  sections.push(`## ${p.manifest.name}\n\n${readFileSync(file, 'utf8').trim()}\n${more.join('')}`);
}
const header = [
  '# Benchmark results',
  '',
  `Gathered by \`pnpm bench\` on ${new Date().toISOString().slice(0, 10)} (each section names its own run): ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
  'Every figure is a ratio against a baseline measured in the same run; see each package README for what is compared.',
  '',
].join('\n');
mkdirSync(join(root, 'bench'), { recursive: true });
writeFileSync(join(root, 'bench', 'RESULTS.md'), `${header}\n${sections.join('\n')}`);
console.log('wrote bench/RESULTS.md');
process.exit((r.status ?? 1) || (footprint.status ?? 1));
