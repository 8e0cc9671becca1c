import { afterEach, describe, expect, it, vi } from 'vitest';
import { abortReason, raceAbort, sleep, throwIfAborted } from './abort.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('abortReason and throwIfAborted', () => {
  it('returns an Error reason as is and wraps anything else in an AbortError', () => {
    const own = new Error('shutdown');
    expect(abortReason(AbortSignal.abort(own))).toBe(own);
    const r = abortReason(AbortSignal.abort('operator stopping'));
    expect(r.name).toBe('AbortError');
    expect(r.message).toBe('operator stopping');
  });

  it('throws only once aborted', () => {
    const ac = new AbortController();
    expect(() => throwIfAborted(ac.signal)).not.toThrow();
    expect(() => throwIfAborted(undefined)).not.toThrow();
    ac.abort();
    expect(() => throwIfAborted(ac.signal)).toThrow(expect.objectContaining({ name: 'AbortError' }));
  });
});

describe('raceAbort', () => {
  it('passes the result through without a signal or before an abort', async () => {
    await expect(raceAbort(Promise.resolve(1))).resolves.toBe(1);
    await expect(raceAbort(Promise.resolve(2), new AbortController().signal)).resolves.toBe(2);
    await expect(raceAbort(Promise.reject(new Error('x')), new AbortController().signal)).rejects.toThrow(
      'x',
    );
  });

  it('rejects as soon as the signal aborts, though the work never settles', async () => {
    const ac = new AbortController();
    const never = new Promise<number>(() => {});
    const raced = raceAbort(never, ac.signal);
    ac.abort(new Error('cancelled by caller'));
    await expect(raced).rejects.toThrow('cancelled by caller');
  });

  it('rejects at once for an already aborted signal and swallows the late rejection', async () => {
    let rejectLate!: (e: unknown) => void;
    const late = new Promise<number>((_r, rej) => {
      rejectLate = rej;
    });
    await expect(raceAbort(late, AbortSignal.abort())).rejects.toMatchObject({ name: 'AbortError' });
    // An unhandled rejection here would fail the run.
    rejectLate(new Error('late'));
    await new Promise((r) => setImmediate(r));
  });
});

describe('sleep', () => {
  it('resolves after the delay', async () => {
    vi.useFakeTimers();
    let done = false;
    const p = sleep(1000).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(done).toBe(true);
  });

  it('rejects when aborted without waiting for the timer, and clears it', async () => {
    vi.useFakeTimers();
    const ac = new AbortController();
    const p = sleep(60_000, ac.signal);
    expect(vi.getTimerCount()).toBe(1);
    ac.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects at once for an already aborted signal', async () => {
    await expect(sleep(10, AbortSignal.abort())).rejects.toMatchObject({ name: 'AbortError' });
  });
});
