import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

function isPath(spec: string): boolean {
  return spec.startsWith('.') || isAbsolute(spec) || spec.startsWith('file:');
}

/** `@acme/x/sub` -> [`@acme/x`, `./sub`]; `x` -> [`x`, `.`]. */
function splitPackage(spec: string): [string, string] {
  const parts = spec.split('/');
  const n = spec.startsWith('@') ? 2 : 1;
  const rest = parts.slice(n).join('/');
  return [parts.slice(0, n).join('/'), rest ? `./${rest}` : '.'];
}

// The conditions an ESM import under Node uses, in the order Node tries them.
const CONDITIONS = ['node', 'import', 'default'];

function pickTarget(target: unknown): string | undefined {
  if (typeof target === 'string') return target;
  if (Array.isArray(target)) {
    for (const t of target) {
      const hit = pickTarget(t);
      if (hit) return hit;
    }
    return undefined;
  }
  if (target && typeof target === 'object') {
    for (const [key, value] of Object.entries(target)) {
      if (CONDITIONS.includes(key)) {
        const hit = pickTarget(value);
        if (hit) return hit;
      }
    }
  }
  return undefined;
}

function packageEntry(pkgDir: string, subpath: string): string | undefined {
  const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
    exports?: unknown;
    main?: string;
  };
  const exp = manifest.exports;
  if (exp !== undefined) {
    const map =
      typeof exp === 'string' ||
      Array.isArray(exp) ||
      !Object.keys(exp as object).some((k) => k.startsWith('.'))
        ? { '.': exp }
        : (exp as Record<string, unknown>);
    const target = pickTarget(map[subpath]);
    return target ? join(pkgDir, target) : undefined;
  }
  if (subpath !== '.') return join(pkgDir, subpath);
  return join(pkgDir, manifest.main ?? 'index.js');
}

/**
 * Where a `module:` of the providers config points, as a URL to import, or undefined when it
 * is not found under `dir`. A path is taken relative to `dir`; a package name is looked up in
 * `node_modules` from `dir` upwards, following its `exports` as an ESM import would.
 */
export function resolveModuleIn(spec: string, dir: string): string | undefined {
  if (spec.startsWith('file:')) return spec;
  if (isPath(spec)) {
    const file = resolve(dir, spec);
    return existsSync(file) ? pathToFileURL(file).href : undefined;
  }
  const [name, subpath] = splitPackage(spec);
  for (let at = resolve(dir); ; at = dirname(at)) {
    const pkgDir = join(at, 'node_modules', name);
    if (existsSync(join(pkgDir, 'package.json'))) {
      const file = packageEntry(pkgDir, subpath);
      return file ? pathToFileURL(file).href : undefined;
    }
    if (dirname(at) === at) return undefined;
  }
}
