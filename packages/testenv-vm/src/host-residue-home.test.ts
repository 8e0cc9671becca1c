import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The run's host-residue check (scripts/host-residue.mjs) against what tools write into the home
// directory when a suite does not point them at its own dir: kubectl's discovery cache gains one
// directory per API server address, so a run that forgets leaves a new one every time.
const script = fileURLToPath(new URL('../../../scripts/host-residue.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'ep-residue-home-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const check = (home: string, ...args: string[]) =>
  spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', env: { ...process.env, HOME: home } });

describe('host residue check and the home directory', () => {
  it('names what a run added under the home directory and nothing that was there before', () => {
    const home = join(dir, 'home');
    mkdirSync(join(home, '.kube', 'cache', 'discovery', '10.0.0.1_6443'), { recursive: true });
    mkdirSync(join(home, '.config', 'unrelated'), { recursive: true });
    const before = join(dir, 'before.json');
    const report = join(dir, 'report.json');
    expect(check(home, 'snapshot', before).status).toBe(0);
    const added = join(home, '.kube', 'cache', 'discovery', '127.0.0.1_34019');
    mkdirSync(added);
    writeFileSync(join(added, 'servergroups.json'), '{}');
    writeFileSync(join(home, '.config', 'unrelated', 'x'), '');
    const r = check(home, 'compare', before, `--report=${report}`, '--keep-daemons');
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(readFileSync(report, 'utf8')) as { problems: string[] };
    expect(out.problems.filter((p) => p.startsWith('home:'))).toEqual([
      `home: 2 left by the run: ${added}, ${join(added, 'servergroups.json')}`,
    ]);
  });
});
