import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A port the kernel just handed out on 127.0.0.1 (free at the time of the call). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export interface Daemon {
  name: string;
  child: ChildProcess;
  logPath: string;
  /** The last lines the daemon wrote, for error messages. */
  tail(lines?: number): string;
  exited(): boolean;
  stop(): Promise<void>;
}

/** Starts a long-running process with its output in `logPath`. */
export function startDaemon(name: string, bin: string, args: string[], logPath: string): Daemon {
  const log = createWriteStream(logPath);
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  let done = false;
  const exit = new Promise<void>((resolve) => {
    child.on('exit', () => {
      done = true;
      resolve();
    });
    child.on('error', () => {
      done = true;
      resolve();
    });
  });
  return {
    name,
    child,
    logPath,
    exited: () => done,
    tail(lines = 30) {
      try {
        return readFileSync(logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      } catch {
        return '';
      }
    },
    async stop() {
      if (!done) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exit;
        clearTimeout(timer);
      }
      log.end();
    },
  };
}

/** Polls `probe` until it returns true, the daemon exits, or `timeoutMs` passes. */
export async function waitUntil(
  what: string,
  daemon: Daemon,
  probe: () => Promise<boolean>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    if (daemon.exited()) {
      throw new Error(`${daemon.name} exited before ${what}; last output:\n${daemon.tail()}`);
    }
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `${daemon.name}: ${what} not reached within ${timeoutMs} ms; last output:\n${daemon.tail()}`,
  );
}
