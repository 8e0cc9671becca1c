import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../src/chaos/seeded-random.js';
import { readState, statePath } from '../src/standalone/state-file.js';

// `up` (the built CLI, over the real local provider) killed with SIGKILL at seeded random
// points and started again: the state file is never lost or half-written, and the run ends
// with every Proxy Ready and exactly one local instance each.
const MAIN = join(__dirname, '..', 'dist', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'ep-kill9-'));
const stateDir = join(dir, 'state');
const instancesDir = join(dir, 'local', 'instances');
const N = 4;
const base = 40_000 + (process.pid % 500) * 20;
writeFileSync(
  join(dir, 'providers.yaml'),
  `- name: local\n  type: local\n  local: {stateDir: local, portRange: {min: ${base}, max: ${base + 19}}, engine: node}\n`,
);
writeFileSync(
  join(dir, 'proxies.yaml'),
  Array.from(
    { length: N },
    (_, i) =>
      `apiVersion: egress-proxies.dev/v1alpha1\nkind: Proxy\nmetadata: {name: k${i}}\nspec: {provider: local}\n`,
  ).join('---\n'),
);
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  spawnSync(
    process.execPath,
    [MAIN, 'down', '--state-dir', stateDir, '--providers', join(dir, 'providers.yaml')],
    {
      cwd: dir,
      timeout: 60_000,
    },
  );
  rmSync(dir, { recursive: true, force: true });
});

const up = (...extra: string[]) =>
  spawn(
    process.execPath,
    [
      MAIN,
      'up',
      '-f',
      'proxies.yaml',
      '--providers',
      'providers.yaml',
      '--state-dir',
      stateDir,
      '--output',
      'plain',
      ...extra,
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );

async function waitFor(what: string, fn: () => boolean, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('standalone: up killed with SIGKILL and started again', () => {
  it('never loses or half-writes the state file, and converges to one instance per Proxy', async () => {
    const random = seededRandom(9091);
    for (let round = 0; round < 5; round++) {
      const child = up();
      children.push(child);
      // Progress, not time: this child has written the state (its pid is in it) at least once.
      await waitFor('a state write by this up', () => {
        try {
          return readState(stateDir)?.pid === child.pid;
        } catch {
          return false;
        }
      });
      await new Promise((r) => setTimeout(r, Math.floor(random() * 400)));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      // Whatever the moment, the file parses as a complete state (renamed into place, never torn).
      const text = readFileSync(statePath(stateDir), 'utf8');
      expect(() => JSON.parse(text)).not.toThrow();
      expect(readState(stateDir)?.proxies.length).toBe(N);
    }
    const last = up('--once', '--timeout', '2m');
    children.push(last);
    const code = await new Promise<number | null>((r) => last.once('exit', r));
    expect(code).toBe(0);
    const st = readState(stateDir)!;
    expect(st.proxies.map((p) => p.status?.phase)).toEqual(Array(N).fill('Ready'));
    expect(readdirSync(instancesDir)).toHaveLength(N);
  }, 240_000);
});
