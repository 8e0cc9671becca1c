#!/usr/bin/env node
// Every TypeScript block of every package README, type-checked against the built packages the way
// a consumer's project sees them: an ESM project with `module: nodenext`, and one with
// `moduleResolution: bundler`. A block whose info string says `ts fragment` is prose-in-code (it
// uses names defined elsewhere) and is left out. For a published package, the README's install
// line must also name every package its examples import, or `pnpm add` + the example fails.
// Writes {passed, failed, problems} to .test-results/readme-blocks.json for the summary.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { root, workspacePackages } from './workspace.mjs';

const MODES = {
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
  bundler: { module: 'esnext', moduleResolution: 'bundler' },
};

/** The fenced blocks of a Markdown text: info string, body, and the line the body starts on. */
export function fencedBlocks(text) {
  const out = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const fence = open[1];
    const body = [];
    let j = i + 1;
    while (j < lines.length && !lines[j].startsWith(fence)) body.push(lines[j++]);
    out.push({ info: open[2].trim(), body: body.join('\n'), line: i + 2 });
    i = j;
  }
  return out;
}

const isTypeScript = (info) => /^(ts|typescript)(\s|$)/.test(info);
const isFragment = (info) => /\bfragment\b/.test(info);

/** Bare package names a block imports (`@scope/name` or `name`), without subpaths. */
export function importedPackages(code) {
  const names = new Set();
  for (const m of code.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"./][^'"]*)['"]/g)) {
    const spec = m[1];
    if (spec.startsWith('node:')) continue;
    const parts = spec.split('/');
    names.add(spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
  }
  return names;
}

/** Packages named by `pnpm add` / `npm install` / `yarn add` lines of the shell blocks. */
export function installedPackages(blocks) {
  const names = new Set();
  for (const b of blocks) {
    if (!/^(sh|bash|shell|console)?$/.test(b.info.split(/\s/)[0] ?? '')) continue;
    for (const line of b.body.split('\n')) {
      const m = /^\s*\$?\s*(?:pnpm add|npm (?:install|i)|yarn add)\s+(.*)$/.exec(line);
      if (!m) continue;
      for (const word of m[1].split(/\s+/)) {
        if (!word || word.startsWith('-')) continue;
        names.add(word.replace(/(.)@[^/]*$/, '$1'));
      }
    }
  }
  return names;
}

function resolveFrom(dir, name) {
  for (let d = dir; ; d = dirname(d)) {
    const candidate = join(d, 'node_modules', name);
    if (existsSync(candidate)) return candidate;
    if (dirname(d) === d) return undefined;
  }
}

function main() {
  const packages = workspacePackages();
  const byName = new Map(packages.map((p) => [p.manifest.name, p]));
  const work = mkdtempSync(join(tmpdir(), 'readme-blocks-'));
  const problems = [];
  const files = new Map();
  const links = new Map([['@types/node', resolveFrom(root, '@types/node')]]);
  let installChecks = 0;
  for (const p of packages) {
    const readme = join(p.dir, 'README.md');
    if (!existsSync(readme)) continue;
    const blocks = fencedBlocks(readFileSync(readme, 'utf8'));
    const imported = new Set();
    blocks.forEach((b, i) => {
      if (!isTypeScript(b.info) || isFragment(b.info)) return;
      const file = `${p.rel.replace('/', '__')}__${i}.ts`;
      // A block without import/export is still a module, so blocks never share globals.
      writeFileSync(join(work, file), `${b.body}\nexport {};\n`);
      files.set(file, { readme: `${p.rel}/README.md`, line: b.line });
      for (const name of importedPackages(b.body)) {
        imported.add(name);
        const target = byName.get(name)?.dir ?? resolveFrom(p.dir, name);
        if (target) links.set(name, target);
      }
    });
    if (p.manifest.private || imported.size === 0) continue;
    installChecks += 1;
    const installed = installedPackages(blocks);
    const missing = [...imported].filter((n) => !installed.has(n) && n !== p.manifest.name);
    if (!installed.has(p.manifest.name)) missing.unshift(p.manifest.name);
    if (missing.length)
      problems.push(`${p.rel}/README.md: the install line does not name ${missing.join(', ')}`);
  }
  for (const [name, target] of links) {
    const at = join(work, 'node_modules', name);
    mkdirSync(dirname(at), { recursive: true });
    symlinkSync(target, at, 'dir');
  }
  writeFileSync(join(work, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  const tsc = join(resolveFrom(root, 'typescript'), 'bin', 'tsc');
  const failedBlocks = new Set();
  for (const [mode, opts] of Object.entries(MODES)) {
    const config = {
      compilerOptions: {
        ...opts,
        target: 'es2022',
        lib: ['es2023'],
        types: ['node'],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
      },
      files: [...files.keys()],
    };
    writeFileSync(join(work, `tsconfig.${mode}.json`), JSON.stringify(config));
    const r = spawnSync(process.execPath, [tsc, '-p', `tsconfig.${mode}.json`, '--pretty', 'false'], {
      cwd: work,
      encoding: 'utf8',
    });
    for (const line of `${r.stdout}${r.stderr}`.split('\n')) {
      const m = /^(\S+?\.ts)\((\d+),(\d+)\): (error .*)$/.exec(line);
      const where = m && files.get(m[1]);
      if (!where) {
        // Indented lines continue the error above them.
        if (line.trim() && !/^\s/.test(line) && r.status !== 0 && !m) problems.push(`${mode}: ${line}`);
        continue;
      }
      failedBlocks.add(`${mode}:${m[1]}`);
      problems.push(`${where.readme}:${where.line + Number(m[2]) - 1} (${mode}): ${m[4]}`);
    }
  }
  rmSync(work, { recursive: true, force: true });
  const checks = files.size * Object.keys(MODES).length + installChecks;
  const failed = failedBlocks.size + problems.filter((p) => p.includes('install line')).length;
  const stray = problems.length && failed === 0 ? 1 : 0;
  const report = { passed: checks - failed, failed: failed + stray, problems };
  mkdirSync(join(root, '.test-results'), { recursive: true });
  writeFileSync(join(root, '.test-results', 'readme-blocks.json'), JSON.stringify(report, null, 2));
  console.log(
    `README blocks: ${files.size} TypeScript blocks in ${Object.keys(MODES).length} modes, ${installChecks} install lines`,
  );
  for (const problem of problems) console.log(`  ${problem}`);
  console.log(`${report.passed} passed, ${report.failed} failed`);
  return report.failed === 0 ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(main());
