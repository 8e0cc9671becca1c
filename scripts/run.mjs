#!/usr/bin/env node
// The README's two commands land here (`npm start`, `npm test`) so that a fresh clone on a
// machine with only Node 20 and npm needs no other step: pnpm is obtained at the pinned version,
// the workspace is installed and built, then the requested job runs.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const pnpmVersion = pkg.packageManager.replace(/^pnpm@/, '');

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: process.env, ...opts });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

function capture(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

// corepack's signature check fails on some registries, so the pinned pnpm comes from npx when
// the one on PATH (if any) is not the pinned version.
function pnpm() {
  if (capture('pnpm', ['--version']) === pnpmVersion) return ['pnpm', []];
  return ['npx', ['--yes', `pnpm@${pnpmVersion}`]];
}

function step(title, cmd, args, opts) {
  console.log(`\n=== ${title}`);
  return run(cmd, args, opts);
}

function install() {
  const [cmd, pre] = pnpm();
  const code = step('install', cmd, [...pre, 'install', '--frozen-lockfile', '--prefer-offline']);
  if (code !== 0) process.exit(code);
  const b = step('build', cmd, [...pre, 'exec', 'turbo', 'run', 'build', '--output-logs=errors-only']);
  if (b !== 0) process.exit(b);
  return [cmd, pre];
}

const job = process.argv[2];
if (job === 'test') {
  const [cmd, pre] = install();
  const failures = [];
  if (step('lint', cmd, [...pre, 'exec', 'biome', 'check', '.']) !== 0) failures.push('lint');
  if (
    step('typecheck', cmd, [...pre, 'exec', 'turbo', 'run', 'typecheck', '--output-logs=errors-only']) !== 0
  )
    failures.push('typecheck');
  // Tests of every package, then the package checks; the summary reads what each wrote down.
  step('test', cmd, [...pre, 'exec', 'turbo', 'run', 'test', '--continue', '--concurrency=2']);
  step('package checks (publint, attw, node 20/22 imports)', process.execPath, [
    'scripts/check-packages.mjs',
  ]);
  const code = run(process.execPath, ['scripts/summary.mjs', ...failures.map((f) => `--failed-step=${f}`)]);
  process.exit(code);
} else if (job === 'start') {
  const [cmd, pre] = install();
  // Until the operator's standalone mode lands, the main job is the conformance kit run over
  // the reference provider, with its readable report.
  process.exit(
    run(cmd, [...pre, '--filter', '@egress-proxies/conformance', 'run', 'report', ...process.argv.slice(3)]),
  );
} else {
  console.error(`usage: node scripts/run.mjs test|start   (got ${JSON.stringify(job)})`);
  process.exit(2);
}
