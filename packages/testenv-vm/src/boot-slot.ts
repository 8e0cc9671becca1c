import { mkdirSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireFileLock, type HeldLock, sleep } from '@egress-proxies/testenv-libvirt';
import { TestEnvVmError } from './errors.js';

/** Env var that overrides how many guests may boot at once on this machine. */
export const BOOT_SLOTS_ENV = 'EGRESS_PROXIES_GUEST_BOOT_SLOTS';

export interface BootSlotOptions {
  /** Who asks, recorded for whoever waits behind it ("testenv-vm boot test", "e2e-vm run"). */
  holder?: string;
  /** Default: the env var, else one slot per two cores (a TCG boot keeps one core busy). */
  slots?: number;
  /** Where the slot lock files live; default one machine-wide directory under the OS temp dir. */
  lockDir?: string;
  /** Default 2 hours: a whole e2e run may hold the slot in front of us. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Told once, and again whenever the holders change, while the call waits. */
  onWait?: (holders: string[]) => void;
}

export interface BootSlot {
  readonly index: number;
  readonly lockPath: string;
  /** Frees the slot; safe to call twice. The kernel frees it too if this process dies. */
  release(): Promise<void>;
}

export function defaultLockDir(): string {
  return join(tmpdir(), 'egress-testenv-vm-boot-slots');
}

export function bootSlotCount(env: NodeJS.ProcessEnv = process.env, cores = availableParallelism()): number {
  const raw = env[BOOT_SLOTS_ENV];
  if (raw !== undefined && raw !== '') {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1 || n > 64) {
      throw new TestEnvVmError(
        'INVALID_ARGUMENT',
        `${BOOT_SLOTS_ENV} must be an integer from 1 to 64, got ${raw}`,
      );
    }
    return n;
  }
  return Math.max(1, Math.floor(cores / 2));
}

const TRY_MS = 200;
const POLL_MS = 1000;

/**
 * Takes one of the machine's guest-boot slots: flock(2) locks on `slot-<n>.lock`, so every
 * process on the machine (the boot test, the e2e run, other worktrees' suites) agrees, and a
 * crashed holder frees its slot with its last file descriptor. Waits, without a deadline of its
 * own beyond `timeoutMs`, until a slot is free.
 */
export async function acquireBootSlot(o: BootSlotOptions = {}): Promise<BootSlot> {
  const slots = o.slots ?? bootSlotCount();
  if (!Number.isInteger(slots) || slots < 1 || slots > 64) {
    throw new TestEnvVmError('INVALID_ARGUMENT', `slots must be an integer from 1 to 64, got ${slots}`);
  }
  const timeoutMs = o.timeoutMs ?? 2 * 60 * 60_000;
  const dir = o.lockDir ?? defaultLockDir();
  mkdirSync(dir, { recursive: true, mode: 0o1777 });
  const holder = o.holder ?? `pid ${process.pid}`;
  const started = Date.now();
  let told: string | undefined;
  for (;;) {
    o.signal?.throwIfAborted();
    for (let index = 0; index < slots; index++) {
      const lockPath = join(dir, `slot-${index}.lock`);
      const lock = await tryLock(lockPath, o.signal);
      if (lock) return held(index, lockPath, lock, holder);
    }
    const holders = await currentHolders(dir, slots);
    const key = holders.join('\n');
    if (key !== told) {
      told = key;
      o.onWait?.(holders);
    }
    if (Date.now() - started >= timeoutMs) {
      throw new TestEnvVmError(
        'VM_START_FAILED',
        `no guest boot slot of ${slots} in ${dir} came free within ${timeoutMs} ms; held by: ${holders.join('; ') || 'unknown'}`,
      );
    }
    await sleep(POLL_MS, o.signal);
  }
}

async function tryLock(path: string, signal?: AbortSignal): Promise<HeldLock | undefined> {
  try {
    return await acquireFileLock(path, { timeoutMs: TRY_MS, signal });
  } catch (e) {
    if (signal?.aborted) throw signal.reason;
    if ((e as { code?: string }).code === 'LOCK_TIMEOUT') return undefined;
    throw new TestEnvVmError(
      'VM_START_FAILED',
      `cannot lock the guest boot slot ${path}: ${(e as Error).message}`,
      {
        cause: e,
      },
    );
  }
}

async function held(index: number, lockPath: string, lock: HeldLock, holder: string): Promise<BootSlot> {
  const note = `${lockPath}.holder`;
  // Only for the waiters' messages: the lock itself is the flock, not this file.
  await writeFile(note, `${holder} (pid ${process.pid}) since ${new Date().toISOString()}\n`).catch(
    () => undefined,
  );
  let releasing: Promise<void> | undefined;
  return {
    index,
    lockPath,
    release() {
      releasing ??= (async () => {
        await rm(note, { force: true });
        await lock.release();
      })();
      return releasing;
    },
  };
}

async function currentHolders(dir: string, slots: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < slots; i++) {
    const text = await readFile(join(dir, `slot-${i}.lock.holder`), 'utf8').catch(() => '');
    if (text.trim()) out.push(text.trim());
  }
  return out;
}
