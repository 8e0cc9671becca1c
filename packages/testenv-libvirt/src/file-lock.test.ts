import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TestEnvError } from './errors.js';
import { acquireFileLock, flockArgs } from './file-lock.js';

const dir = mkdtempSync(join(tmpdir(), 'ep-lock-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('acquireFileLock', () => {
  it('excludes a second exclusive holder until release', async () => {
    const path = join(dir, 'x.lock');
    const first = await acquireFileLock(path);
    const err = await acquireFileLock(path, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(TestEnvError.isInstance(err) && err.code === 'LOCK_TIMEOUT').toBe(true);
    expect((err as Error).message).toContain(path);
    let secondGot = false;
    const second = acquireFileLock(path).then((l) => {
      secondGot = true;
      return l;
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(secondGot).toBe(false);
    await first.release();
    await (await second).release();
    expect(secondGot).toBe(true);
  });

  it('lets shared holders coexist and keeps an exclusive one out', async () => {
    const path = join(dir, 's.lock');
    const a = await acquireFileLock(path, { shared: true });
    const b = await acquireFileLock(path, { shared: true, timeoutMs: 2_000 });
    await expect(acquireFileLock(path, { timeoutMs: 300 })).rejects.toThrow(/could not lock/);
    await a.release();
    await b.release();
    await (await acquireFileLock(path, { timeoutMs: 2_000 })).release();
  });

  it('is released when the holder pipe closes, as on a crash', async () => {
    const path = join(dir, 'dead.lock');
    // The same command acquireFileLock runs; closing its stdin is what the kernel does to a
    // crashed test process's pipe ends.
    const holder = spawn('flock', flockArgs(path, false, 10_000), { stdio: ['pipe', 'pipe', 'ignore'] });
    await new Promise<void>((r) => holder.stdout.once('data', () => r()));
    await expect(acquireFileLock(path, { timeoutMs: 300 })).rejects.toThrow(/could not lock/);
    holder.stdin.destroy();
    const lock = await acquireFileLock(path, { timeoutMs: 10_000 });
    await lock.release();
    expect(holder.exitCode ?? (await new Promise((r) => holder.once('exit', r)))).toBe(0);
  });

  it('gives up at once with the abort reason', async () => {
    const path = join(dir, 'abort.lock');
    const held = await acquireFileLock(path);
    const ctl = new AbortController();
    const waiting = acquireFileLock(path, { signal: ctl.signal });
    const reason = new Error('enough');
    setTimeout(() => ctl.abort(reason), 100);
    await expect(waiting).rejects.toBe(reason);
    await held.release();
  });
});
