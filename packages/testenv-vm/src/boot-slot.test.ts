import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireBootSlot, BOOT_SLOTS_ENV, bootSlotCount } from './boot-slot.js';

describe('guest boot slots', () => {
  let lockDir: string;
  beforeEach(async () => {
    lockDir = await mkdtemp(join(tmpdir(), 'boot-slot-test-'));
  });
  afterEach(async () => {
    await rm(lockDir, { recursive: true, force: true });
  });

  it('lets one boot at a time through a single slot, telling the waiter who holds it', async () => {
    const first = await acquireBootSlot({ lockDir, slots: 1, holder: 'first boot' });
    const waits: string[][] = [];
    let secondHeld = false;
    const second = acquireBootSlot({
      lockDir,
      slots: 1,
      holder: 'second boot',
      onWait: (h) => waits.push(h),
    }).then((s) => {
      secondHeld = true;
      return s;
    });
    // Wait on the waiter having looked (not on time): it must report the first holder and stay queued.
    while (waits.length === 0) await new Promise((r) => setTimeout(r, 50));
    expect(waits[0]?.[0]).toMatch(/^first boot \(pid \d+\) since /);
    expect(secondHeld).toBe(false);
    await first.release();
    const s = await second;
    expect(s.index).toBe(0);
    await s.release();
    await s.release();
  });

  it('hands out distinct slots when there are several', async () => {
    const a = await acquireBootSlot({ lockDir, slots: 2 });
    const b = await acquireBootSlot({ lockDir, slots: 2 });
    expect(new Set([a.index, b.index])).toEqual(new Set([0, 1]));
    await Promise.all([a.release(), b.release()]);
  });

  it('is held against another process on the machine, and freed when that process dies', async () => {
    // Another suite's process holding slot 0 through its own flock, as a second worktree would.
    // Its own process group: the lock fd is inherited by `sleep`, so the whole group must die.
    const other = spawn(
      'flock',
      ['--exclusive', join(lockDir, 'slot-0.lock'), 'sh', '-c', 'echo held; exec sleep 600'],
      { stdio: ['ignore', 'pipe', 'ignore'], detached: true },
    );
    await new Promise((r) => other.stdout.once('data', r));
    const killGroup = () => {
      try {
        process.kill(-(other.pid ?? 0), 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const gone = new Promise((r) => other.once('exit', r));
    try {
      let waited = false;
      const mine = acquireBootSlot({
        lockDir,
        slots: 1,
        onWait: () => {
          waited = true;
        },
      });
      while (!waited) await new Promise((r) => setTimeout(r, 50));
      killGroup();
      await gone;
      const s = await mine;
      expect(s.index).toBe(0);
      await s.release();
    } finally {
      killGroup();
    }
  });

  it('stops waiting when aborted, and the slot stays usable', async () => {
    const first = await acquireBootSlot({ lockDir, slots: 1 });
    const ac = new AbortController();
    let waited = false;
    const waiting = acquireBootSlot({
      lockDir,
      slots: 1,
      signal: ac.signal,
      onWait: () => {
        waited = true;
      },
    });
    while (!waited) await new Promise((r) => setTimeout(r, 50));
    ac.abort(new Error('test cancelled'));
    await expect(waiting).rejects.toThrow('test cancelled');
    await first.release();
    const again = await acquireBootSlot({ lockDir, slots: 1 });
    await again.release();
  });

  it('names bad slot counts', async () => {
    expect(bootSlotCount({}, 2)).toBe(1);
    expect(bootSlotCount({}, 8)).toBe(4);
    expect(bootSlotCount({ [BOOT_SLOTS_ENV]: '3' }, 2)).toBe(3);
    expect(() => bootSlotCount({ [BOOT_SLOTS_ENV]: 'two' }, 2)).toThrow(
      `${BOOT_SLOTS_ENV} must be an integer from 1 to 64, got two`,
    );
    await expect(acquireBootSlot({ lockDir, slots: 0 })).rejects.toThrow(
      /slots must be an integer from 1 to 64, got 0/,
    );
  });
});
