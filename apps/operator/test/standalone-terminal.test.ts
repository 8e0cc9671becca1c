import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { down } from '../src/standalone/down.js';
import { MAIN, upDemoArgs } from './support/run-cli.js';
import { Screen } from './support/terminal-screen.js';

// `up`'s live table on a real pseudo-terminal (util-linux `script`), 60 columns wide: every
// line is cut to fit, so the in-place redraw leaves no stale copy, and after Ctrl-C (sent as the
// byte a terminal sends, so the tty raises SIGINT) the table is not drawn again.
const WIDTH = 60;
const dir = mkdtempSync(join(tmpdir(), 'ep-pty-'));
const stateDir = join(dir, 'state');
const providersPath = join(dir, 'providers.yaml');
const docsPath = join(dir, 'proxies.yaml');

afterAll(async () => {
  if (existsSync(stateDir)) await down({ providersPath, stateDir }).catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

const sh = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

describe('up on a terminal', () => {
  it('redraws the table in place within the width and does not print it again after Ctrl-C', async () => {
    if (!existsSync('/usr/bin/script'))
      throw new Error('util-linux `script` is needed for the pseudo-terminal');
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build the package first`);
    writeFileSync(
      providersPath,
      `- name: local\n  type: local\n  local: {stateDir: local, portRange: {min: 24450, max: 24459}, engine: node, loopbackEgress: true}\n`,
    );
    writeFileSync(
      docsPath,
      ['a', 'b']
        .map(
          (n) =>
            `apiVersion: egress-proxies.dev/v1alpha1\nkind: Proxy\nmetadata: {name: tty-${n}}\nspec: {provider: local}\n`,
        )
        .join('---\n'),
    );
    const up = [process.execPath, MAIN, ...upDemoArgs(docsPath, providersPath, stateDir)].map(sh).join(' ');
    const child = spawn('script', ['-qfec', `stty cols ${WIDTH} rows 40; exec ${up}`, '/dev/null'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let interruptedAt = -1;
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (interruptedAt < 0 && out.includes('Ctrl-C stops reconciling')) {
        interruptedAt = out.length;
        // Two more ticks of the redraw timer, then Ctrl-C.
        setTimeout(() => child.stdin.write('\x03'), 2500);
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    const code = await closed;
    clearTimeout(timer);
    expect(interruptedAt, out).toBeGreaterThan(0);
    expect(code, out).toBe(0);

    const screen = new Screen(WIDTH);
    screen.write(out.slice(0, out.indexOf('^C')));
    // On screen before Ctrl-C: one table (nothing stale from earlier drawings), no row of it wrapped
    // (the start-up line above it is printed once, never redrawn: it may wrap).
    const onScreen = screen.lines();
    expect(
      onScreen.filter((l) => l.startsWith('NAME ')),
      onScreen.join('\n'),
    ).toHaveLength(1);
    expect(
      screen.rows.slice(onScreen.findIndex((l) => l.startsWith('NAME '))).some((r) => r.wrapped),
      onScreen.join('\n'),
    ).toBe(false);
    expect(onScreen.filter((l) => /^tty-[ab] /.test(l))).toHaveLength(2);
    // After Ctrl-C: the goodbye lines only, no table drawn again.
    const after = out.slice(out.indexOf('^C'));
    expect(after).not.toContain('NAME ');
    expect(after).not.toContain('\x1b[');
    expect(after).toContain('stopped reconciling; 2 proxies keep running');
  }, 120_000);
});
