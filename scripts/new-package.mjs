#!/usr/bin/env node
// Scaffolds a workspace package in the one shape every package here shares:
//   node scripts/new-package.mjs packages/provider-foo @egress-proxies/provider-foo "What it does" [--private]
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { root } from './workspace.mjs';

const [dirArg, name, description = '', ...flags] = process.argv.slice(2);
if (!dirArg || !name) {
  console.error('usage: new-package.mjs <dir> <name> [description] [--private]');
  process.exit(2);
}
const isPrivate = flags.includes('--private');
const dir = join(root, dirArg);
if (existsSync(join(dir, 'package.json'))) {
  console.error(`${dirArg} already has a package.json`);
  process.exit(2);
}
mkdirSync(join(dir, 'src'), { recursive: true });
const up = relative(dir, root);
const entry = (base) => ({
  import: { types: `./dist/${base}.d.ts`, default: `./dist/${base}.js` },
  require: { types: `./dist/${base}.d.cts`, default: `./dist/${base}.cjs` },
});
const manifest = {
  name,
  version: '0.1.0',
  description,
  license: 'Apache-2.0',
  ...(isPrivate ? { private: true } : {}),
  type: 'module',
  engines: { node: '>=20.18' },
  sideEffects: false,
  main: './dist/index.cjs',
  module: './dist/index.js',
  types: './dist/index.d.cts',
  exports: { '.': entry('index'), './package.json': './package.json' },
  files: ['dist', 'README.md', 'CHANGELOG.md'],
  ...(isPrivate ? {} : { publishConfig: { access: 'public' } }),
  scripts: { build: 'tsup', typecheck: 'tsc -p tsconfig.json', test: 'vitest run' },
  dependencies: {},
  devDependencies: {},
};
const files = {
  'package.json': `${JSON.stringify(manifest, null, 2)}\n`,
  'tsconfig.json': `${JSON.stringify({ extends: `${up}/tsconfig.base.json`, include: ['src', 'test'] }, null, 2)}\n`,
  'tsup.config.ts': `import { defineConfig } from 'tsup';\nimport { libraryBuild } from '${up}/tsup.base';\n\nexport default defineConfig(libraryBuild());\n`,
  'vitest.config.ts': `import shared from '${up}/vitest.shared';\n\nexport default shared;\n`,
  'CHANGELOG.md': `# ${name}\n`,
  'README.md': `# ${name}\n\n${description}\n`,
  'src/index.ts': 'export {};\n',
};
for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
console.log(`created ${dirArg} (${name})`);
