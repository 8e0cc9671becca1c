import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Two separately installed copies of the package (as when two dependents pin different
// versions) must recognise each other's errors: `instanceof` cannot, the Symbol.for marker can.
const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..');
type Contract = typeof import('../src/index.js');

let root: string;
let a: Contract;
let b: Contract;

function install(dir: string, build: string): string {
  const target = join(dir, 'node_modules', '@egress-proxies', 'contract');
  mkdirSync(target, { recursive: true });
  cpSync(join(pkgDir, 'package.json'), join(target, 'package.json'));
  cpSync(build, join(target, 'dist'), { recursive: true });
  return target;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'contract-two-copies-'));
  const build = join(root, 'build');
  const { build: tsup } = await import('tsup');
  await tsup({
    entry: [join(pkgDir, 'src/index.ts')],
    format: ['esm', 'cjs'],
    outDir: build,
    dts: false,
    silent: true,
    config: false,
    platform: 'node',
    target: 'node20',
  });
  const copyA = install(join(root, 'app-a'), build);
  const copyB = install(join(root, 'app-b'), build);
  writeFileSync(join(root, 'package.json'), '{"private":true}');
  a = (await import(pathToFileURL(join(copyA, 'dist/index.js')).href)) as Contract;
  // The second copy through CommonJS: a dual-package hazard inside one copy is covered too.
  b = createRequire(join(copyB, 'package.json'))(join(copyB, 'dist/index.cjs')) as Contract;
}, 120_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('two installed copies', () => {
  it('are really two distinct classes', () => {
    expect(a.ProviderError).not.toBe(b.ProviderError);
    expect(a.notFoundError('x')).not.toBeInstanceOf(b.ProviderError);
  });

  it('recognise each other through isInstance and the is* helpers', () => {
    let thrown: unknown;
    try {
      throw a.notFoundError('domain proxy-1 not found', { provider: 'kvm2-home', operation: 'get' });
    } catch (err) {
      thrown = err;
    }
    expect(b.ProviderError.isInstance(thrown)).toBe(true);
    expect(b.isNotFound(thrown)).toBe(true);
    expect(b.isTransient(thrown)).toBe(false);
    expect(a.isPermanent(b.permanentError('bad'))).toBe(true);
  });

  it('wrapError from one copy keeps the class of an error from the other', () => {
    const inner = a.quotaExceededError('pool full', { code: 'POOL_FULL' });
    const wrapped = b.wrapError('kvm2-home', 'create', inner);
    expect(wrapped.kind).toBe('QuotaExceeded');
    expect(wrapped.code).toBe('POOL_FULL');
    expect(a.isQuotaExceeded(wrapped)).toBe(true);
  });
});
