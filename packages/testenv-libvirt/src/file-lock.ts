import { spawn } from 'node:child_process';
import { TestEnvError } from './errors.js';

export interface HeldLock {
  release(): Promise<void>;
}

/**
 * Arguments for flock(1): it prints "locked" once it holds the lock and keeps it until its stdin
 * reaches EOF, which is our release or, if we crash, the kernel closing our end of the pipe.
 */
export function flockArgs(path: string, shared: boolean, timeoutMs: number): string[] {
  return [
    shared ? '--shared' : '--exclusive',
    '--wait',
    String(timeoutMs / 1000),
    path,
    'sh',
    '-c',
    'echo locked; exec cat >/dev/null',
  ];
}

export interface LockOptions {
  shared?: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Takes a flock(2) lock on `path` through a `flock` child process that holds it until its stdin
 * closes. The kernel ties the lock to that child, and the child exits when our end of the pipe
 * closes, so a crashed test process can never leave a stale lock behind.
 */
export function acquireFileLock(path: string, opts: LockOptions = {}): Promise<HeldLock> {
  const timeoutMs = opts.timeoutMs ?? 120_000;
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(opts.signal.reason);
      return;
    }
    const child = spawn('flock', flockArgs(path, Boolean(opts.shared), timeoutMs), {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let locked = false;
    let stderr = '';
    const exited = new Promise<void>((r) => child.once('close', () => r()));
    const onAbort = () => child.kill('SIGKILL');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    child.stdout.on('data', (c: Buffer) => {
      if (locked || !c.toString('utf8').includes('locked')) return;
      locked = true;
      opts.signal?.removeEventListener('abort', onAbort);
      resolve({
        release: async () => {
          child.stdin.end();
          await exited;
        },
      });
    });
    child.on('error', (e) => {
      opts.signal?.removeEventListener('abort', onAbort);
      reject(new TestEnvError('COMMAND_FAILED', `cannot run flock: ${e.message}`, { cause: e }));
    });
    child.on('close', (code) => {
      if (locked) return;
      opts.signal?.removeEventListener('abort', onAbort);
      if (opts.signal?.aborted) {
        reject(opts.signal.reason);
        return;
      }
      // flock exits 1 when --wait runs out.
      reject(
        new TestEnvError(
          code === 1 ? 'LOCK_TIMEOUT' : 'COMMAND_FAILED',
          `could not lock ${path} (${opts.shared ? 'shared' : 'exclusive'}) within ${timeoutMs} ms` +
            (stderr.trim() ? `: ${stderr.trim()}` : ''),
        ),
      );
    });
  });
}

export async function withFileLock<T>(path: string, opts: LockOptions, fn: () => Promise<T>): Promise<T> {
  const lock = await acquireFileLock(path, opts);
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}
