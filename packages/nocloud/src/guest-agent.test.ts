import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { guestAgentScript } from './guest-agent.js';

// The script runs for real, under dash and bash, with PATH holding only stub commands that
// log their arguments: what it would install and start is read from that log.

let root = '';
let script = '';

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'nocloud-agent-'));
  script = join(root, 'vendor-data.sh');
  writeFileSync(script, guestAgentScript());
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

let caseNo = 0;

/** Runs the script with stubs for `commands` (name -> exit code) and returns the calls made. */
function runWith(shell: string, commands: Record<string, number>) {
  const dir = join(root, `case-${caseNo++}`);
  const bin = join(dir, 'bin');
  spawnSync('mkdir', ['-p', bin]);
  const log = join(dir, 'calls.log');
  writeFileSync(log, '');
  for (const [name, code] of Object.entries(commands)) {
    const stub = join(bin, name);
    writeFileSync(
      stub,
      `#!/bin/sh\necho "${name} $* [\${DEBIAN_FRONTEND:-}]" >> "$STUB_LOG"\nexit ${code}\n`,
    );
    chmodSync(stub, 0o755);
  }
  const r = spawnSync(shell, [script], {
    env: { PATH: bin, STUB_LOG: log },
    encoding: 'utf8',
    timeout: 20_000,
  });
  const calls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  return { status: r.status, stderr: r.stderr, calls };
}

describe.each(['/bin/sh', '/bin/bash'])('guestAgentScript under %s', (shell) => {
  it('is a shell script, not cloud-config', () => {
    expect(guestAgentScript().startsWith('#!/bin/sh\n')).toBe(true);
    expect(spawnSync(shell, ['-n', script]).status).toBe(0);
  });

  it('installs with apt-get non-interactively and starts the systemd unit', () => {
    const r = runWith(shell, { 'apt-get': 0, systemctl: 0 });
    expect(r.status).toBe(0);
    expect(r.calls).toEqual([
      'apt-get -o DPkg::Lock::Timeout=300 update -q [noninteractive]',
      'apt-get -o DPkg::Lock::Timeout=300 install -y -q qemu-guest-agent [noninteractive]',
      'systemctl enable qemu-guest-agent []',
      'systemctl start qemu-guest-agent []',
    ]);
  });

  it('prefers apt-get when several package managers exist', () => {
    const r = runWith(shell, { 'apt-get': 0, dnf: 0, zypper: 0, apk: 0, systemctl: 0 });
    expect(r.calls.filter((c) => !c.startsWith('systemctl'))).toEqual([
      'apt-get -o DPkg::Lock::Timeout=300 update -q [noninteractive]',
      'apt-get -o DPkg::Lock::Timeout=300 install -y -q qemu-guest-agent [noninteractive]',
    ]);
  });

  it('uses dnf, then zypper, when apt-get is absent', () => {
    expect(runWith(shell, { dnf: 0, zypper: 0, systemctl: 0 }).calls[0]).toBe(
      'dnf install -y qemu-guest-agent []',
    );
    expect(runWith(shell, { zypper: 0, systemctl: 0 }).calls[0]).toBe(
      'zypper --non-interactive install qemu-guest-agent []',
    );
  });

  it('uses apk and OpenRC on Alpine', () => {
    const r = runWith(shell, { apk: 0, 'rc-update': 0, 'rc-service': 0 });
    expect(r.status).toBe(0);
    expect(r.calls).toEqual([
      'apk add --no-cache qemu-guest-agent []',
      'rc-update add qemu-guest-agent default []',
      'rc-service qemu-guest-agent start []',
    ]);
  });

  it('skips the install when qemu-ga is already installed, and only starts it', () => {
    const r = runWith(shell, { 'qemu-ga': 0, 'apt-get': 0, systemctl: 0 });
    expect(r.status).toBe(0);
    expect(r.calls).toEqual(['systemctl enable qemu-guest-agent []', 'systemctl start qemu-guest-agent []']);
  });

  it('falls back to service when systemctl cannot start the agent', () => {
    const r = runWith(shell, { 'qemu-ga': 0, systemctl: 1, service: 0 });
    expect(r.status).toBe(0);
    expect(r.calls.at(-1)).toBe('service qemu-guest-agent start []');
  });

  it('fails without starting anything when the install fails', () => {
    const r = runWith(shell, { 'apt-get': 100, systemctl: 0 });
    expect(r.status).toBe(1);
    expect(r.calls.some((c) => c.startsWith('systemctl'))).toBe(false);
  });

  it('fails with a message when no package manager exists', () => {
    const r = runWith(shell, { systemctl: 0 });
    expect(r.status).toBe(1);
    expect(r.calls).toEqual([]);
    expect(r.stderr).toContain('none of apt-get, dnf, zypper or apk found');
  });
});

describe('guestAgentScript when the agent already runs', () => {
  let agent: ChildProcess | undefined;

  afterEach(() => {
    if (agent?.pid) agent.kill('SIGKILL');
    agent = undefined;
  });

  it('does nothing at all', async () => {
    // A process whose command name is qemu-ga, as the real agent's is.
    const fake = join(root, 'qemu-ga');
    copyFileSync('/bin/sleep', fake);
    chmodSync(fake, 0o755);
    agent = spawn(fake, ['60'], { stdio: 'ignore' });
    const pid = agent.pid!;
    for (let i = 0; i < 50; i++) {
      try {
        if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'qemu-ga') break;
      } catch {}
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(readFileSync(`/proc/${pid}/comm`, 'utf8').trim()).toBe('qemu-ga');
    for (const shell of ['/bin/sh', '/bin/bash']) {
      const r = runWith(shell, { 'apt-get': 0, dnf: 0, systemctl: 0, service: 0 });
      expect(r.status, shell).toBe(0);
      expect(r.calls, shell).toEqual([]);
    }
  });
});
