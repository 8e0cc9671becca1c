#!/usr/bin/env node
// What an npm user meets on a package's page and in its tarball: repository (with the package's
// directory), homepage, bugs, keywords, the full Apache-2.0 text in a shipped LICENSE, and a README
// whose links work off GitHub (absolute, since npm does not serve the repository's other files).
// Writes {passed, failed, problems} to .test-results/package-metadata.json for the summary.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { publishable, root } from './workspace.mjs';

// Sentences only the full license text has (the short notice has neither).
const FULL_LICENSE = [
  'TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION',
  'END OF TERMS AND CONDITIONS',
];

// Packages an application may leave out. A package that only names their types, or loads them
// lazily and runs without them, declares them as optional peers: npm 7+ installs every
// non-optional peer, so a required peer forces a download the package never runs.
const OPTIONAL_PEERS = ['@opentelemetry/api'];

/** Whether built code imports `name` when it loads (a static import or a top-level require). */
export function importsAtLoad(code, name) {
  const q = name.replace(/[/@.-]/g, (c) => `\\${c}`);
  return new RegExp(
    `(^|\\n)\\s*(import\\s[^;]*?from\\s*|import\\s*|export\\s[^;]*?from\\s*)["']${q}["']|(^|\\n)(const|var|let)\\s[^\\n]*=\\s*require\\(["']${q}["']\\)`,
  ).test(code);
}

/**
 * The built JavaScript a package ships (its dist folder), concatenated; undefined when not built.
 * A `test/` subpath is left out: it is a harness run beside the conformance kit, whose own
 * dependencies bring the optional packages.
 */
function distCode(dir) {
  const dist = join(dir, 'dist');
  if (!existsSync(dist)) return undefined;
  return readdirSync(dist, { recursive: true })
    .filter((f) => /\.(c|m)?js$/.test(String(f)) && !String(f).startsWith('test/'))
    .map((f) => readFileSync(join(dist, String(f)), 'utf8'))
    .join('\n');
}

/** Peers declared required that the built code never imports at load (or the reverse). */
export function peerProblems(manifest, code) {
  const out = [];
  for (const name of OPTIONAL_PEERS) {
    if (!manifest.peerDependencies?.[name]) continue;
    if (code === undefined) {
      out.push(`dist/ is missing: build the package before checking whether it imports ${name} at load`);
      continue;
    }
    const optional = manifest.peerDependenciesMeta?.[name]?.optional === true;
    const atLoad = importsAtLoad(code, name);
    if (!atLoad && !optional)
      out.push(
        `peer ${name} is required, but the built code never imports it at load: mark it optional in peerDependenciesMeta`,
      );
    if (atLoad && optional)
      out.push(
        `peer ${name} is optional, but the built code imports it at load: an install without it fails to import`,
      );
  }
  return out;
}

/** Problems of one package's manifest, LICENSE and README (empty when all is well). */
export function metadataProblems(p, packed, code = distCode(p.dir)) {
  const m = p.manifest;
  const out = [];
  if (m.license !== 'Apache-2.0') out.push(`license is ${JSON.stringify(m.license)}, expected "Apache-2.0"`);
  const repo = m.repository;
  if (typeof repo !== 'object' || !/^git\+https:\/\/\S+\.git$/.test(repo?.url ?? ''))
    out.push('repository: expected {type: "git", url: "git+https://….git", directory}');
  else if (repo.directory !== p.rel)
    out.push(`repository.directory is ${JSON.stringify(repo.directory)}, expected "${p.rel}"`);
  if (!/^https:\/\/\S+#readme$/.test(m.homepage ?? ''))
    out.push('homepage: expected an https URL of the README');
  if (!/^https:\/\/\S+\/issues$/.test(m.bugs?.url ?? '')) out.push('bugs.url: expected the issues URL');
  if (!Array.isArray(m.keywords) || m.keywords.length < 3) out.push('keywords: expected at least three');
  out.push(...peerProblems(m, code));
  const license = join(p.dir, 'LICENSE');
  const text = existsSync(license) ? readFileSync(license, 'utf8') : '';
  for (const s of FULL_LICENSE)
    if (!text.includes(s)) out.push(`LICENSE lacks "${s}" (the full license text)`);
  for (const f of ['LICENSE', 'README.md', 'package.json'])
    if (!packed.includes(f)) out.push(`npm pack does not ship ${f}`);
  const readme = existsSync(join(p.dir, 'README.md')) ? readFileSync(join(p.dir, 'README.md'), 'utf8') : '';
  // Code (fenced or inline) is not a link, whatever brackets it holds.
  const prose = readme.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  for (const link of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = link[1];
    if (/^(https?:|mailto:|#)/.test(target)) continue;
    out.push(`README link ${JSON.stringify(target)} is relative: npm's page cannot follow it`);
  }
  return out;
}

/** The files `npm pack` would ship (run for every package at once: each takes seconds). */
function packedFiles(dir) {
  return new Promise((resolve) => {
    execFile('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir }, (err, stdout) => {
      try {
        resolve(err ? [] : JSON.parse(stdout)[0].files.map((f) => f.path));
      } catch {
        resolve([]);
      }
    });
  });
}

async function main() {
  const problems = [];
  let passed = 0;
  let failed = 0;
  const packages = publishable();
  const packed = await Promise.all(packages.map((p) => packedFiles(p.dir)));
  for (const [i, p] of packages.entries()) {
    const found = metadataProblems(p, packed[i] ?? []);
    if (found.length === 0) passed += 1;
    else failed += 1;
    for (const f of found) problems.push(`${p.rel}: ${f}`);
  }
  mkdirSync(join(root, '.test-results'), { recursive: true });
  writeFileSync(
    join(root, '.test-results', 'package-metadata.json'),
    JSON.stringify({ passed, failed, problems }, null, 2),
  );
  for (const line of problems) console.log(`  ${line}`);
  console.log(`package metadata: ${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(await main());
