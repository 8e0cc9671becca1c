// The one provider shape, checked for every provider package and for the conformance kit's
// reference provider (the model authors copy): the same file for the same role, the same names
// out of src/index.ts and no others (the rest behind ./internal), `create<X>Provider(config:
// <X>ConfigInput, options?)` returning one `Provider & Checker`, a factory carrying the config
// schema, and `./test` built from src/test/.
// Needs the packages built (it imports dist and type-checks against the declarations).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root, workspacePackages } from './workspace.mjs';

/** The role files every provider has, under its source directory. */
export const ROLE_FILES = ['index.ts', 'config.ts', 'factory.ts', 'provider.ts', 'profile.ts', 'errors.ts'];

const camel = (type) => type.replace(/-([a-z0-9])/g, (_, c) => c.toUpperCase());
const pascal = (type) => camel(type).replace(/^./, (c) => c.toUpperCase());

/** Every provider: its type, package, source directory and built entry (dist). */
export function providerShapes() {
  const out = [];
  for (const p of workspacePackages()) {
    const m = /^packages\/provider-([a-z0-9-]+)$/.exec(p.rel);
    if (m && m[1] !== 'utils') {
      out.push({
        type: m[1],
        pkg: p.manifest.name,
        dir: p.dir,
        src: join(p.dir, 'src'),
        dist: join(p.dir, 'dist/index.js'),
        test: true,
      });
    }
  }
  const kit = join(root, 'packages/conformance');
  out.push({
    type: 'reference',
    pkg: '@egress-proxies/conformance/reference',
    dir: kit,
    src: join(kit, 'src/reference'),
    dist: join(kit, 'dist/reference.js'),
    test: false,
  });
  return out;
}

function sourceProblems(p) {
  const problems = [];
  for (const f of ROLE_FILES) if (!existsSync(join(p.src, f))) problems.push(`no ${f}`);
  if (problems.length > 0) return problems;
  const index = readFileSync(join(p.src, 'index.ts'), 'utf8');
  for (const f of ROLE_FILES.filter((f) => f !== 'index.ts')) {
    if (!index.includes(`from './${f.replace(/\.ts$/, '.js')}'`))
      problems.push(`index.ts re-exports nothing from ${f}`);
  }
  const X = pascal(p.type);
  for (const name of [`${X}Config`, `${X}ConfigInput`]) {
    if (!new RegExp(`\\b${name}\\b`).test(index)) problems.push(`index.ts exports no type ${name}`);
  }
  return problems;
}

function manifestProblems(p) {
  if (!p.test) return [];
  const problems = [];
  const m = JSON.parse(readFileSync(join(p.dir, 'package.json'), 'utf8'));
  const sub = (name) => {
    const e = m.exports?.[`./${name}`];
    if (!e) return false;
    if (
      e.import?.default !== `./dist/${name}/index.js` ||
      e.require?.default !== `./dist/${name}/index.cjs`
    ) {
      problems.push(`./${name} is not built to dist/${name}/index`);
    }
    const tsup = readFileSync(join(p.dir, 'tsup.config.ts'), 'utf8');
    if (!tsup.includes(`'${name}/index': 'src/${name}/index.ts'`)) {
      problems.push(`tsup does not build ./${name} from src/${name}/index.ts`);
    }
    if (!existsSync(join(p.src, name, 'index.ts'))) problems.push(`no src/${name}/index.ts`);
    return true;
  };
  if (!sub('test')) problems.push('no ./test subpath');
  if (existsSync(join(p.dir, 'test/index.ts')))
    problems.push('test/index.ts: the ./test subpath lives in src/test/');
  sub('internal'); // optional; built the same way when present
  for (const key of Object.keys(m.exports ?? {})) {
    if (!['.', './test', './internal', './package.json'].includes(key))
      problems.push(`unexpected subpath ${key}`);
  }
  return problems;
}

/**
 * The public export list of a provider package: the factory, `create<X>Provider`, the config
 * (schema, defaults, types), the provider and instance types, the profile and the error codes.
 * Everything else belongs behind `./internal`, so a helper a provider needs inside never becomes
 * a name users depend on. `runtime` is the built index's keys; `index` its source (for types).
 */
export function exportListProblems(type, runtime, index) {
  const x = camel(type);
  const X = pascal(type);
  const allowed = new Set([
    `create${X}Provider`,
    `${x}ProviderFactory`,
    `${x}ConfigSchema`,
    `${type.toUpperCase().replace(/-/g, '_')}_DEFAULTS`,
    `${x}Profile`,
    `${X}ErrorCode`,
    `${X}CheckReason`,
  ]);
  const problems = [];
  for (const name of runtime) {
    if (!allowed.has(name)) problems.push(`index exports ${name}: not public (move it to ./internal)`);
  }
  // Types: named for the provider (its config, provider, options and instance types).
  const isPublicType = (name) => name.startsWith(X) || name.startsWith(`Resolved${X}`);
  if (/export\s+(type\s+)?\*/.test(index)) problems.push('index re-exports a whole module (export *)');
  for (const m of index.matchAll(/export\s+(type\s+)?\{([^}]*)\}/g)) {
    for (const raw of m[2]
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean)) {
      const isType = Boolean(m[1]) || raw.startsWith('type ');
      const name = raw
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop();
      if (isType && !isPublicType(name))
        problems.push(`index exports type ${name}: not named for the provider (move it to ./internal)`);
    }
  }
  return problems;
}

async function exportProblems(p, contract) {
  if (!existsSync(p.dist)) return [`not built (${p.dist})`];
  const mod = await import(pathToFileURL(p.dist).href);
  const problems = [];
  const x = camel(p.type);
  const X = pascal(p.type);
  const create = mod[`create${X}Provider`];
  const factory = mod[`${x}ProviderFactory`];
  const schema = mod[`${x}ConfigSchema`];
  const defaults = mod[`${p.type.toUpperCase().replace(/-/g, '_')}_DEFAULTS`];
  const profile = mod[`${x}Profile`];
  if (typeof create !== 'function') problems.push(`no create${X}Provider`);
  if (!contract.isProviderFactory(factory) || factory.type !== p.type)
    problems.push(`no ${x}ProviderFactory of type ${p.type}`);
  if (!contract.isConfigSchema(schema)) problems.push(`no ${x}ConfigSchema`);
  else if (factory?.configSchema !== schema)
    problems.push(`${x}ProviderFactory does not carry ${x}ConfigSchema`);
  if (typeof defaults !== 'object' || defaults === null) problems.push(`no ${p.type.toUpperCase()}_DEFAULTS`);
  // A profile, or (the reference) a function of the config's listPartial answering one.
  const answered = typeof profile === 'function' ? profile('fail-whole') : profile;
  if (!answered || contract.profileProblems(answered).length > 0) problems.push(`no complete ${x}Profile`);
  if (p.test) {
    const index = readFileSync(join(p.src, 'index.ts'), 'utf8');
    problems.push(...exportListProblems(p.type, Object.keys(mod), index));
  }
  return problems;
}

/** `create<X>Provider(config: <X>ConfigInput, options?)` returning `Provider & Checker`, checked by tsc. */
function typeProblems(shapes) {
  const dir = mkdtempSync(join(tmpdir(), 'ep-provider-shape-'));
  try {
    const paths = {};
    for (const p of workspacePackages()) {
      if (existsSync(join(p.dir, 'dist/index.d.ts')))
        paths[p.manifest.name] = [join(p.dir, 'dist/index.d.ts')];
    }
    paths['@egress-proxies/conformance/reference'] = [join(root, 'packages/conformance/dist/reference.d.ts')];
    const lines = [
      "import type { Checker, Provider } from '@egress-proxies/contract';",
      'type Is<T extends true> = T;',
      'type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;',
    ];
    shapes.forEach((p, i) => {
      const X = pascal(p.type);
      lines.push(
        `import type { create${X}Provider as C${i}, ${X}ConfigInput as I${i} } from '${p.pkg}';`,
        `export type Config${i} = Is<Same<Exclude<Parameters<typeof C${i}>[0], undefined>, I${i}>>;`,
        `export type Options${i} = Is<undefined extends Parameters<typeof C${i}>[1] ? true : false>;`,
        `export type Returns${i} = Is<ReturnType<typeof C${i}> extends Provider & Checker ? true : false>;`,
      );
    });
    writeFileSync(join(dir, 'shape.ts'), `${lines.join('\n')}\n`);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          types: [],
          typeRoots: [join(root, 'node_modules/@types')],
          baseUrl: root,
          paths,
        },
        files: ['shape.ts'],
      }),
    );
    const r = spawnSync(join(root, 'node_modules/.bin/tsc'), ['-p', dir], { encoding: 'utf8' });
    if (r.status === 0) return new Map();
    // Attribute each error to the provider whose alias it names.
    const byProvider = new Map();
    for (const line of `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.includes('error TS'))) {
      const m = /shape\.ts\((\d+),/.exec(line);
      const idx = m ? Math.floor((Number(m[1]) - 4) / 4) : -1;
      const key = shapes[idx]?.type ?? '*';
      byProvider.set(key, [...(byProvider.get(key) ?? []), line.replace(/^.*error TS\d+: /, '')]);
    }
    return byProvider;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** [{name, problems}] for every provider, the reference included. */
export async function checkProviderShapes() {
  const contract = await import(pathToFileURL(join(root, 'packages/contract/dist/index.js')).href);
  const shapes = providerShapes();
  const typed = typeProblems(shapes);
  const out = [];
  for (const p of shapes) {
    const problems = [
      ...sourceProblems(p),
      ...manifestProblems(p),
      ...(await exportProblems(p, contract)),
      ...(typed.get(p.type) ?? []),
      ...(typed.get('*') ?? []),
    ];
    out.push({ name: p.pkg, problems });
  }
  return out;
}
