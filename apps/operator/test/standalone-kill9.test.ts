import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { readState, STATE_FILE, statePath } from '../src/standalone/state-file.js';
import { LocalBackend } from './support/local-backend.js';
import { seededRandom } from './support/seeded-random.js';

// `up` (the built CLI, over the real local provider) killed with SIGKILL at seeded random points
// and started again: the state file is never lost or half-written, and the run ends with every
// Proxy Ready, exactly one local proxy process each and nothing a killed run left behind.
const MAIN = join(__dirname, '..', 'dist', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'ep-kill9-'));
const stateDir = join(dir, 'state');
const local = new LocalBackend(join(dir, 'local'));
const N = 4;
const ROUNDS = 6;
// A range of its own (the other suites' local ranges sit below 47000).
const base = 45_000 + (process.pid % 50) * 20;
writeFileSync(join(dir, 'providers.yaml'), stringify([local.providerEntry({ min: base, max: base + 19 })]));
writeFileSync(
  join(dir, 'proxies.yaml'),
  Array.from(
    { length: N },
    (_, i) =>
      `apiVersion: egress-proxies.dev/v1alpha1\nkind: Proxy\nmetadata: {name: k${i}}\nspec: {provider: local}\n`,
  ).join('---\n'),
);

interface Up {
  child: ChildProcess;
  /** Settles with the exit code however early the process ends (a listener added late misses it). */
  exited: Promise<number | null>;
  output: () => string;
}

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  spawnSync(process.execPath, [MAIN, 'down', '--state-dir', stateDir, '--providers', 'providers.yaml'], {
    cwd: dir,
    timeout: 60_000,
  });
  local.kill();
  rmSync(dir, { recursive: true, force: true });
});

function up(...extra: string[]): Up {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build the package first (pnpm build)`);
  const child = spawn(
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
  children.push(child);
  // Drained as it comes: an unread pipe that fills up blocks the child on its next write.
  let text = '';
  const keep = (b: Buffer) => {
    text = (text + b.toString()).slice(-8_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, exited, output: () => text };
}

/** Polls `fn` until true; a process ending first fails with what it said. */
async function progress(what: string, u: Up, fn: () => boolean) {
  let ended = false;
  void u.exited.then(() => {
    ended = true;
  });
  while (!fn()) {
    if (ended) throw new Error(`up ended before ${what}:\n${u.output()}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const stateText = () => readFileSync(statePath(stateDir), 'utf8');

describe('standalone: up killed with SIGKILL and started again', () => {
  it('never loses or half-writes the state file, and converges to one proxy per Proxy with nothing left over', async () => {
    const random = seededRandom(9091);
    let installation: string | undefined;
    for (let round = 0; round < ROUNDS; round++) {
      const u = up();
      // Progress, not time: this process has written the state (its pid is in it) at least once.
      await progress('its first state write', u, () => {
        try {
          return readState(stateDir)?.pid === u.child.pid;
        } catch {
          return false;
        }
      });
      // A seeded moment after that: during a create, a readiness wait or a state write.
      await new Promise((r) => setTimeout(r, Math.floor(random() * 1_500)));
      u.child.kill('SIGKILL');
      await u.exited;
      // Whatever the moment, the file parses as one complete state (renamed into place, never torn).
      expect(() => JSON.parse(stateText())).not.toThrow();
      const st = readState(stateDir)!;
      expect(st.proxies.map((p) => p.name).sort()).toEqual(Array.from({ length: N }, (_, i) => `k${i}`));
      installation ??= st.installation;
      expect(st.installation).toBe(installation);
    }
    const last = up('--once', '--timeout', '3m');
    expect(await last.exited, last.output()).toBe(0);
    const st = readState(stateDir)!;
    expect(st.installation).toBe(installation);
    expect(st.proxies.map((p) => p.status?.phase)).toEqual(Array(N).fill('Ready'));
    // The killed runs' temp files went with the next start; the provider's too.
    expect(readdirSync(stateDir).filter((f) => f.startsWith(STATE_FILE) && f !== STATE_FILE)).toEqual([]);
    const instances = readdirSync(join(local.stateDir, 'instances'));
    expect(instances.filter((f) => f.endsWith('.json'))).toHaveLength(N);
    expect(instances.filter((f) => !f.endsWith('.json'))).toEqual([]);
    // One process per instance: none duplicated by a create a kill cut short, none lost.
    const procs = local.processes();
    expect([...procs.values()].map((p) => p.length)).toEqual(Array(N).fill(1));
    for (const [name, pid] of local.records()) expect(procs.get(name)).toEqual([pid]);
  }, 360_000);
});
