import { describe, expect, it } from 'vitest';
import { TestEnvVmError } from './errors.js';
import { waitWithProgress } from './progress-wait.js';

// A clock that moves 10 s on every read: the waits below run in microseconds of real time while
// covering many minutes of "guest" time, so nothing depends on how loaded the machine is.
function steppingClock(stepMs = 10_000) {
  let t = 0;
  return () => {
    t += stepMs;
    return t;
  };
}

describe('waitWithProgress', () => {
  it('keeps waiting past the idle limit while the guest makes progress', async () => {
    let tries = 0;
    let consoleBytes = 0;
    const value = await waitWithProgress({
      what: 'the agent',
      attempt: async () => (++tries >= 60 ? 'up' : undefined),
      progress: async () => (consoleBytes += 100),
      idleTimeoutMs: 30_000,
      timeoutMs: 60 * 60_000,
      intervalMs: 0,
      now: steppingClock(),
    });
    // 60 tries at 20 s of clock each is 20 minutes: far past the 30 s idle limit.
    expect(value).toBe('up');
    expect(tries).toBe(60);
  });

  it('fails once progress stops, naming the idle time and the last error', async () => {
    let consoleBytes = 0;
    const err = await waitWithProgress({
      what: 'cloud-init',
      attempt: async () => {
        throw new Error('agent not connected');
      },
      progress: async () => {
        if (consoleBytes < 500) consoleBytes += 100;
        return consoleBytes;
      },
      idleTimeoutMs: 60_000,
      timeoutMs: 60 * 60_000,
      intervalMs: 0,
      now: steppingClock(),
      explain: async () => 'serial tail: login:',
    }).catch((e: unknown) => e);
    expect(TestEnvVmError.isInstance(err)).toBe(true);
    expect((err as TestEnvVmError).code).toBe('AGENT_TIMEOUT');
    expect((err as Error).message).toMatch(
      /waiting for cloud-init: no guest progress for \d+ ms \(idle limit 60000 ms\)/,
    );
    expect((err as Error).message).toContain('last: agent not connected');
    expect((err as Error).message).toContain('serial tail: login:');
  });

  it('fails at the overall limit even when progress never stops', async () => {
    let n = 0;
    const err = await waitWithProgress({
      what: 'the agent',
      attempt: async () => undefined,
      progress: async () => n++,
      idleTimeoutMs: 60_000,
      timeoutMs: 5 * 60_000,
      intervalMs: 0,
      now: steppingClock(),
    }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/limit 300000 ms\), though the guest kept making progress/);
  });

  it('stops promptly when aborted and names bad limits', async () => {
    const ac = new AbortController();
    const aborted = waitWithProgress({
      what: 'x',
      attempt: async () => undefined,
      progress: async () => 0,
      idleTimeoutMs: 60 * 60_000,
      timeoutMs: 60 * 60_000,
      intervalMs: 60_000,
      signal: ac.signal,
    });
    ac.abort(new Error('cancelled'));
    await expect(aborted).rejects.toThrow('cancelled');
    await expect(
      waitWithProgress({
        what: 'x',
        attempt: async () => 1,
        progress: async () => 0,
        idleTimeoutMs: 0,
        timeoutMs: 1,
      }),
    ).rejects.toThrow(/idleTimeoutMs must be a positive number of ms, got 0/);
  });
});

describe('waitWithProgress fatal errors', () => {
  it('ends at once on an error marked fatal', async () => {
    let tries = 0;
    const err = await waitWithProgress({
      what: 'the agent',
      attempt: async () => {
        tries += 1;
        throw new Error(tries < 3 ? 'not yet' : 'qemu exited');
      },
      fatal: (e) => (e as Error).message === 'qemu exited',
      progress: async () => 0,
      idleTimeoutMs: 60 * 60_000,
      timeoutMs: 60 * 60_000,
      intervalMs: 0,
    }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('qemu exited');
    expect(tries).toBe(3);
  });
});
