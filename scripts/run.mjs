#!/usr/bin/env node
// The README's two commands land here (`npm start`, `npm test`) so that a fresh clone on a
// machine with only Node 20 and npm needs no other step: pnpm is obtained at the pinned version,
// the workspace is installed and built, then the requested job runs.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pnpmCommand, root, workspacePackages } from './workspace.mjs';

// Turborepo's telemetry notice is not for a newcomer's first screen (set it to 0 to opt back in).
const env = { TURBO_TELEMETRY_DISABLED: '1', ...process.env };

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env, ...opts });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

function step(title, cmd, args, opts) {
  console.log(`\n=== ${title}`);
  return run(cmd, args, opts);
}

function install() {
  const [cmd, pre] = pnpmCommand();
  const code = step('install', cmd, [...pre, 'install', '--frozen-lockfile', '--prefer-offline']);
  if (code !== 0) process.exit(code);
  const n = workspacePackages().length;
  console.log(
    `\n=== build (${n} packages; the first build takes about five minutes on two cores, later ones come from the cache)`,
  );
  // hash-only: one line per package as its build starts (a cache hit or a miss). It leaves out
  // a failure's output, so a failed build runs again showing only errors (the rest is cached).
  const build = (logs) => run(cmd, [...pre, 'exec', 'turbo', 'run', 'build', `--output-logs=${logs}`]);
  if (build('hash-only') !== 0) {
    console.log('\n=== the build failed; its errors:');
    process.exit(build('errors-only') || 1);
  }
  return [cmd, pre];
}

const job = process.argv[2];
if (job === 'test') {
  // Reports of an earlier run must not be summed as this run's.
  for (const dir of [root, ...workspacePackages().map((p) => p.dir)]) {
    rmSync(join(dir, '.test-results'), { recursive: true, force: true });
  }
  const [cmd, pre] = install();
  const failures = [];
  if (step('lint', cmd, [...pre, 'exec', 'biome', 'check', '.']) !== 0) failures.push('lint');
  if (
    step('typecheck', cmd, [...pre, 'exec', 'turbo', 'run', 'typecheck', '--output-logs=errors-only']) !== 0
  )
    failures.push('typecheck');
  // What the host holds now, so that whatever the run leaves behind can be named at the end.
  run(process.execPath, ['scripts/host-residue.mjs', 'snapshot']);
  // Tests of every package, then the package checks; the summary reads what each wrote down.
  step('test', cmd, [...pre, 'exec', 'turbo', 'run', 'test', '--continue', '--concurrency=2']);
  step('package checks (publint, attw, node 20/22 imports)', process.execPath, [
    'scripts/check-packages.mjs',
  ]);
  // Every README's TypeScript examples, compiled as a consumer's project would.
  step('README examples', process.execPath, ['scripts/check-readme-blocks.mjs']);
  step('package metadata (npm page and tarball)', process.execPath, ['scripts/check-package-metadata.mjs']);
  // The README's first command, run the way a newcomer runs it (`npm start -- --once`).
  step('first command', process.execPath, ['scripts/first-command-check.mjs']);
  // A provider from outside the workspace: tarballs only, the kit, then `up` through module:.
  step('example third-party provider', process.execPath, ['scripts/example-provider-check.mjs']);
  step('host residue', process.execPath, ['scripts/host-residue.mjs', 'compare']);
  const code = run(process.execPath, ['scripts/summary.mjs', ...failures.map((f) => `--failed-step=${f}`)]);
  process.exit(code);
} else if (job === 'start') {
  install();
  // The embedded default: the operator in standalone mode on three local proxies and a loopback
  // echo target (the arguments live beside the sample, so the operator's test runs the same).
  // `--once` (scripts, CI) exits once all are Ready and the printed curl line answered, deleting
  // the proxies it made; without it, Ctrl-C stops reconciling and leaves them running.
  const extra = process.argv.slice(3);
  const upArgs = JSON.parse(readFileSync(join(root, 'examples/standalone/up-args.json'), 'utf8'));
  const args = [
    'apps/operator/dist/main.js',
    ...upArgs,
    ...(extra.includes('--once') && !extra.includes('--clean') ? ['--clean'] : []),
    ...extra,
  ];
  console.log(`\n=== npm run egress-proxies -- ${args.slice(1).join(' ')}`);
  // Ctrl-C reaches the operator too; this process waits for it to stop and print how to clean up.
  process.on('SIGINT', () => {});
  // The commands it prints must run from the clone as printed: no bin is on PATH here.
  process.exit(
    run(process.execPath, args, { env: { ...env, EGRESS_PROXIES_COMMAND: 'npm run egress-proxies --' } }),
  );
} else {
  console.error(`usage: node scripts/run.mjs test|start   (got ${JSON.stringify(job)})`);
  process.exit(2);
}
