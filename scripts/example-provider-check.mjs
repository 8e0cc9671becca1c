#!/usr/bin/env node
// A provider written outside the workspace, the way an author outside this repository works:
// examples/provider-memory is copied into a temporary directory, installed against the packed
// tarballs of our packages only (`pnpm pack`), type-checked, put through the conformance kit,
// packed itself, installed into a modules directory, and loaded by `egress-proxies up` through
// `module:` until its Proxies are Ready. Writes {passed, failed} for the summary.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pnpmCommand, root } from './workspace.mjs';

const example = join(root, 'examples/provider-memory');
const tmp = mkdtempSync(join(tmpdir(), 'ep-example-provider-'));
const packs = join(tmp, 'packs');
const work = join(tmp, 'work');
const modules = join(tmp, 'modules');
const checks = [];
const failures = [];

function sh(title, cmd, args, cwd, env = {}) {
  console.log(`\n--- ${title}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 10 * 60_000,
  });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  process.stdout.write(out);
  return { ok: r.status === 0, out };
}

function check(name, ok, detail = '') {
  checks.push(name);
  if (!ok) failures.push(`${name}${detail ? `: ${detail}` : ''}`);
  return ok;
}

const npmInstall = ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'];

function run() {
  const [pnpm, pre] = pnpmCommand();
  mkdirSync(packs, { recursive: true });
  for (const pkg of ['contract', 'provider-utils', 'conformance']) {
    const r = sh(
      `pack ${pkg}`,
      pnpm,
      [...pre, 'pack', '--pack-destination', packs],
      join(root, 'packages', pkg),
    );
    if (!check(`pack @egress-proxies/${pkg}`, r.ok)) return;
  }
  const tarball = (prefix) =>
    join(
      packs,
      readdirSync(packs).find((f) => f.startsWith(prefix)),
    );
  const ours = {
    '@egress-proxies/contract': `file:${tarball('egress-proxies-contract-')}`,
    '@egress-proxies/provider-utils': `file:${tarball('egress-proxies-provider-utils-')}`,
    '@egress-proxies/conformance': `file:${tarball('egress-proxies-conformance-')}`,
  };

  // The author's checkout: the example's files, its dependencies on ours pointed at the tarballs.
  cpSync(example, work, { recursive: true, filter: (src) => !/node_modules|dist|\.test-results/.test(src) });
  const manifest = JSON.parse(readFileSync(join(work, 'package.json'), 'utf8'));
  Object.assign(manifest.dependencies, ours);
  manifest.overrides = ours;
  writeFileSync(join(work, 'package.json'), JSON.stringify(manifest, null, 2));
  if (!check('install the example from tarballs', sh('install', 'npm', npmInstall, work).ok)) return;
  if (!check('type-check and build the example', sh('build', 'npm', ['run', 'build'], work).ok)) return;

  const report = join(tmp, 'vitest.json');
  const kit = sh(
    'conformance kit',
    join(work, 'node_modules/.bin/vitest'),
    ['run', '--reporter=default', '--reporter=json', `--outputFile=${report}`],
    work,
  );
  let passedTests = 0;
  try {
    const r = JSON.parse(readFileSync(report, 'utf8'));
    passedTests = r.numPassedTests;
    check(
      'the example passes the kit',
      kit.ok && r.numFailedTests === 0 && r.numPassedTests > 0,
      `${r.numFailedTests} failed`,
    );
  } catch {
    check('the example passes the kit', false, 'no vitest report');
  }
  console.log(`\nkit: ${passedTests} tests passed`);

  // A user's modules directory: the example's own tarball installed beside ours.
  const packed = sh('pack the example', 'npm', ['pack', '--pack-destination', tmp], work);
  if (!check('pack the example', packed.ok)) return;
  mkdirSync(modules, { recursive: true });
  writeFileSync(
    join(modules, 'package.json'),
    JSON.stringify(
      {
        private: true,
        dependencies: {
          '@acme/provider-memory': `file:${join(
            tmp,
            readdirSync(tmp).find((f) => f.startsWith('acme-provider-memory-')),
          )}`,
          ...ours,
        },
        overrides: ours,
      },
      null,
      2,
    ),
  );
  if (
    !check(
      'install the example into a modules directory',
      sh('install modules', 'npm', npmInstall, modules).ok,
    )
  )
    return;

  const up = sh(
    'egress-proxies up',
    process.execPath,
    [
      join(root, 'apps/operator/dist/main.js'),
      'up',
      '-f',
      join(example, 'proxies.yaml'),
      '--providers',
      join(example, 'providers.yaml'),
      '--state-dir',
      join(tmp, 'state'),
      // No --clean: the instances live in the in-memory backend of this process and end with it.
      '--once',
      '--timeout',
      '3m',
      '--output',
      'plain',
    ],
    tmp,
    { EGRESS_PROXIES_MODULES_DIR: modules },
  );
  check('egress-proxies up exits 0', up.ok);
  check(
    'both memory proxies reach Ready under up',
    /all 2 proxies are Ready\./.test(up.out),
    'no "all 2 proxies are Ready." line',
  );
}

try {
  run();
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
mkdirSync(join(root, '.test-results'), { recursive: true });
const passed = checks.length - failures.length;
writeFileSync(
  join(root, '.test-results', 'example-provider.json'),
  JSON.stringify({ passed, failed: failures.length, failures }, null, 2),
);
if (failures.length) {
  console.error(`\nexample provider check FAILED:\n- ${failures.join('\n- ')}`);
  process.exit(1);
}
console.log(`\nexample provider check passed (${passed} checks)`);
