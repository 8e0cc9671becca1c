import { describe, expect, it } from 'vitest';
import { ConformanceFailure } from './failure.js';
import { settle, track, until, within } from './wait.js';

describe('wait helpers', () => {
  it('within fails the case with the message when the bound passes', async () => {
    const never = new Promise<void>(() => {});
    const err = await within(never, 10, 'the call hung').catch((e: unknown) => e);
    expect(ConformanceFailure.isInstance(err)).toBe(true);
    expect(String((err as Error).message)).toMatch(/the call hung \(waited 10 ms\)/);
    await expect(within(Promise.resolve(3), 10, 'x')).resolves.toBe(3);
  });

  it('settle and track capture outcomes without throwing', async () => {
    expect(await settle(Promise.reject(new Error('no')))).toMatchObject({ ok: false });
    const t = track(Promise.resolve(1));
    expect(t.settled).toBe(false);
    expect(await t.promise).toEqual({ ok: true, value: 1 });
    expect(t.settled).toBe(true);
  });

  it('until polls a predicate and fails when it never holds', async () => {
    let n = 0;
    await until(() => ++n > 3, 1_000, 'never');
    await expect(until(() => false, 10, 'never held')).rejects.toThrow(/never held/);
  });
});
