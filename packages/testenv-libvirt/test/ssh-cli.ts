import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { run } from '../src/exec.js';
import type { SshEndpoint } from '../src/index.js';

/** OpenSSH client options that ignore the machine's own config, agent and known_hosts. */
export function sshArgs(
  ep: Pick<SshEndpoint, 'port' | 'privateKeyPath' | 'knownHostsPath'>,
  over: { keyPath?: string; knownHostsPath?: string } = {},
): string[] {
  return [
    '-F',
    '/dev/null',
    '-i',
    over.keyPath ?? ep.privateKeyPath,
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    'IdentityAgent=none',
    '-o',
    'BatchMode=yes',
    '-o',
    `UserKnownHostsFile=${over.knownHostsPath ?? ep.knownHostsPath}`,
    '-o',
    'GlobalKnownHostsFile=/dev/null',
    '-o',
    'StrictHostKeyChecking=yes',
    '-o',
    'ConnectTimeout=10',
    '-p',
    String(ep.port),
  ];
}

export function sshRun(
  ep: SshEndpoint,
  over: { keyPath?: string; knownHostsPath?: string } = {},
  cmd = 'true',
) {
  return run('ssh', [...sshArgs(ep, over), `${ep.username}@${ep.host}`, cmd], { timeoutMs: 20_000 });
}

/** `ssh -N -L local.sock:remote.sock`; resolves once the local socket exists. */
export async function forwardUnixSocket(
  ep: SshEndpoint,
  localPath: string,
  remotePath: string,
): Promise<{ child: ChildProcess; stderr: () => string; close(): Promise<void> }> {
  const child = spawn(
    'ssh',
    [
      ...sshArgs(ep),
      '-N',
      '-o',
      'ExitOnForwardFailure=yes',
      '-o',
      'StreamLocalBindUnlink=yes',
      '-L',
      `${localPath}:${remotePath}`,
      `${ep.username}@${ep.host}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  child.stderr?.on('data', (c: Buffer) => {
    err += c.toString('utf8');
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const deadline = Date.now() + 15_000;
  while (!existsSync(localPath)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`ssh -L did not create ${localPath}: ${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    stderr: () => err,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        // ssh ends on SIGTERM at once; one that does not is killed rather than waited for.
        const hard = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(hard);
      }
    },
  };
}

export function virshAt(socketPath: string, ...args: string[]) {
  return run('virsh', ['-c', `qemu+unix:///system?socket=${socketPath}`, ...args], { timeoutMs: 30_000 });
}

/**
 * Runs `run(cmd, args)` of the built package in a node process whose controlling terminal is a
 * pty (`script(1)` makes one), as when `.ci/run` or a test is started from a terminal: what the
 * command sees of a terminal comes from how run() spawns it, not from the vitest worker (which
 * has none in CI).
 */
export async function runFromTerminal(cmd: string, args: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'ep-pty-'));
  try {
    const dist = pathToFileURL(fileURLToPath(new URL('../dist/index.js', import.meta.url))).href;
    const out = join(dir, 'result.json');
    const main = join(dir, 'main.mjs');
    writeFileSync(
      main,
      [
        `import { closeSync, openSync, writeFileSync } from 'node:fs';`,
        `import { run } from ${JSON.stringify(dist)};`,
        `const hasTerminal = (() => { try { closeSync(openSync('/dev/tty', 'r')); return true; } catch { return false; } })();`,
        `const r = await run(${JSON.stringify(cmd)}, ${JSON.stringify(args)}, { timeoutMs: 30000 });`,
        `writeFileSync(${JSON.stringify(out)}, JSON.stringify({ hasTerminal, ...r }));`,
      ].join('\n'),
    );
    const pty = await run('script', ['-qec', `${process.execPath} ${main}`, '/dev/null'], {
      timeoutMs: 60_000,
    });
    if (!existsSync(out))
      throw new Error(`script(1) wrote no result (exit ${pty.code}): ${pty.stdout}${pty.stderr}`);
    return JSON.parse(readFileSync(out, 'utf8')) as {
      hasTerminal: boolean;
      code: number | null;
      stdout: string;
      stderr: string;
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Waits for one step of a test with a bound of its own, so a step that hangs fails the test
 * naming that step (vitest's timeout names only the test).
 */
export async function within<T>(step: string, ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${step}: not done within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
