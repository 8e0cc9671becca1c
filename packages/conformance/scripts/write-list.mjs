#!/usr/bin/env node
// Rewrites the generated part of docs/conformance-list.md (between the conformance-list markers)
// from the built case list, so the docs and the kit cannot drift. Run after `pnpm build`.
// Another markdown file with the same markers (docs/contract.md) can be given as the argument.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const { renderConformanceList, renderRuleCases } = await import(join(here, '..', 'dist', 'index.js'));
const file = process.argv[2] ?? join(here, '..', '..', '..', 'docs', 'conformance-list.md');
const start = '<!-- conformance-list:start -->';
const end = '<!-- conformance-list:end -->';
const text = readFileSync(file, 'utf8');
const a = text.indexOf(start);
const b = text.indexOf(end);
if (a < 0 || b < a) throw new Error(`${file} lacks the ${start} / ${end} markers`);
let out = `${text.slice(0, a + start.length)}\n\n${renderConformanceList()}\n${text.slice(b)}`;
// The rule -> cases table, where the file has its markers (docs/contract.md).
const rs = '<!-- rule-cases:start -->';
const re = '<!-- rule-cases:end -->';
const ra = out.indexOf(rs);
const rb = out.indexOf(re);
if (ra >= 0 && rb > ra) out = `${out.slice(0, ra + rs.length)}\n\n${renderRuleCases()}\n${out.slice(rb)}`;
writeFileSync(file, out);
// Format like every other markdown file in the repository, so a lint run does not flag it.
const biome = join(here, '..', '..', '..', 'node_modules', '.bin', 'biome');
if (existsSync(biome)) spawnSync(biome, ['format', '--write', file], { stdio: 'inherit' });
console.log(`wrote the case list into ${file}`);
