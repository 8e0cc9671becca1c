import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The layering rule that the package's test script runs over src/ (.dependency-cruiser.cjs), run
// here over small trees with a planted violation, so a rule that stopped refusing would be seen.
const app = join(dirname(fileURLToPath(import.meta.url)), '..');
// The package exports no bin path; the package's own node_modules holds its link.
const bin = join(app, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

function cruise(tree: string) {
  const r = spawnSync(
    process.execPath,
    [bin, 'src', '--config', join(app, '.dependency-cruiser.cjs'), '--output-type', 'err'],
    { cwd: join(app, 'test/fixtures/rooms', tree), encoding: 'utf8' },
  );
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

// Each run loads TypeScript to read the imports: seconds, so each case has a minute.
describe('the rooms rule', { timeout: 60_000 }, () => {
  it('accepts imports that only go down the floors', () => {
    const r = cruise('layered');
    expect(r.out).not.toContain('error');
    expect(r.code).toBe(0);
  });

  it('refuses an import from a lower room to a higher one, naming both files', () => {
    const r = cruise('upward');
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('no-upward-import-from-domain');
    expect(r.out).toContain('src/domain/clock.ts → src/commands/help.ts');
  });

  it('refuses an import between peers on one floor (one run mode into the other)', () => {
    const r = cruise('peer');
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('no-peer-import-from-cluster');
  });

  it('refuses files that import each other in a loop', () => {
    const r = cruise('cycle');
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('no-circular');
    expect(r.out).toMatch(/src\/pool\/(plan|spread)\.ts/);
  });
});
