#!/usr/bin/env node
// Sums every package's vitest JSON report and the package checks into one closing line,
// `N passed, N failed, N skipped`. A package with a test script and no report counts as failed:
// a crashed runner must not look like a clean one.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { root, workspacePackages } from './workspace.mjs';

let passed = 0;
let failed = 0;
let skipped = 0;
const lines = [];
/** Each failed test with the start of its message: the closing lines are often all a CI log keeps. */
const failures = [];
/** The first lines of a failure message, without terminal colours, on one indented block. */
function firstLines(message, max = 4) {
  return (
    String(message ?? '')
      // Strips the terminal's colour codes.
      .replace(/\u001b\[[0-9;]*m/g, '')
      .split('\n')
      .map((l) => l.trimEnd())
      .filter((l) => l.trim() !== '')
      .slice(0, max)
      .map((l) => `      ${l.slice(0, 300)}`)
  );
}
for (const p of workspacePackages()) {
  if (!p.manifest.scripts?.test) continue;
  const file = join(p.dir, '.test-results', 'vitest.json');
  if (!existsSync(file)) {
    failed += 1;
    lines.push(`  ${p.rel}: no test report (the runner crashed or never ran)`);
    continue;
  }
  const r = JSON.parse(readFileSync(file, 'utf8'));
  const pend = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  // Suites that failed to load report no tests; count each as a failure.
  const broken = (r.testResults ?? []).filter(
    (t) => t.status === 'failed' && t.assertionResults.length === 0,
  ).length;
  for (const t of r.testResults ?? []) {
    const file = relative(p.dir, t.name ?? '');
    if (t.status === 'failed' && t.assertionResults.length === 0) {
      failures.push(
        `  ${p.rel} ${file}: the file failed to load or its hooks failed`,
        ...firstLines(t.message),
      );
    }
    for (const a of t.assertionResults) {
      if (a.status !== 'failed') continue;
      failures.push(`  ${p.rel} ${file} > ${a.fullName}`, ...firstLines(a.failureMessages?.[0]));
    }
  }
  passed += r.numPassedTests;
  failed += r.numFailedTests + broken;
  skipped += pend;
  lines.push(`  ${p.rel}: ${r.numPassedTests} passed, ${r.numFailedTests + broken} failed, ${pend} skipped`);
  // A runner that wraps vitest (the end-to-end run) reports its own checks beside it.
  const extra = join(p.dir, '.test-results', 'runner.json');
  if (existsSync(extra)) {
    const c = JSON.parse(readFileSync(extra, 'utf8'));
    passed += c.passed;
    failed += c.failed;
    lines.push(`  ${p.rel} (runner checks): ${c.passed} passed, ${c.failed} failed`);
    for (const problem of c.problems ?? []) lines.push(`    ${problem}`);
  }
}
// Checks that run outside vitest write {passed, failed} into the root .test-results; each one
// that should have run and left no report counts as failed.
for (const [file, label] of [
  ['package-checks.json', 'package checks'],
  ['first-command.json', 'first command (npm start -- --once)'],
  ['readme-blocks.json', 'README examples (type-checked)'],
  ['package-metadata.json', 'package metadata'],
  ['example-provider.json', 'example third-party provider (tarballs, kit, up via module:)'],
  ['host-residue.json', 'host residue (what the run left behind)'],
]) {
  const path = join(root, '.test-results', file);
  if (!existsSync(path)) {
    failed += 1;
    lines.push(`  ${label}: no report`);
    continue;
  }
  const c = JSON.parse(readFileSync(path, 'utf8'));
  passed += c.passed;
  failed += c.failed;
  lines.push(`  ${label}: ${c.passed} passed, ${c.failed} failed`);
  for (const problem of c.problems ?? []) lines.push(`    ${problem}`);
}
for (const arg of process.argv.slice(2)) {
  if (arg.startsWith('--failed-step=')) {
    failed += 1;
    lines.push(`  step ${arg.slice('--failed-step='.length)}: failed`);
  }
}
console.log('\n=== summary');
console.log(lines.join('\n'));
if (failures.length > 0) {
  console.log('\nfailed tests:');
  console.log(failures.join('\n'));
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed === 0 ? 0 : 1);
