import { acquireFileLock, type HeldLock } from './file-lock.js';
import { lockPath } from './paths.js';

/**
 * A machine-wide readers-writer lock on "the running libvirtd". Every test env holds it shared
 * for its lifetime; a restart takes it exclusively so it never cuts another suite's connections
 * mid-test. The gate gives the writer priority: while a restart waits, new envs queue at the gate
 * instead of starving it.
 */
export async function acquireUse(signal?: AbortSignal, timeoutMs = 600_000): Promise<HeldLock> {
  const gate = await acquireFileLock(lockPath('gate'), { timeoutMs, signal });
  try {
    return await acquireFileLock(lockPath('users'), { shared: true, timeoutMs, signal });
  } finally {
    await gate.release();
  }
}

export async function acquireExclusiveUse(signal?: AbortSignal, timeoutMs = 600_000): Promise<HeldLock> {
  const gate = await acquireFileLock(lockPath('gate'), { timeoutMs, signal });
  try {
    const users = await acquireFileLock(lockPath('users'), { timeoutMs, signal });
    return {
      release: async () => {
        await users.release();
        await gate.release();
      },
    };
  } catch (e) {
    await gate.release();
    throw e;
  }
}
