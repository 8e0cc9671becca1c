import { describe, expect, it } from 'vitest';
import { done, next, runSteps, type Step } from './step-outcome.js';

describe('runSteps', () => {
  it('hands each step the state the one before continued with, and stops at the first done', async () => {
    const seen: number[] = [];
    const steps: Step<number>[] = [
      (n) => {
        seen.push(n);
        return next(n + 1);
      },
      async (n) => {
        seen.push(n);
        return next(n * 10);
      },
      (n) => {
        seen.push(n);
        return done({ type: 'after', ms: n }, 'blocked');
      },
      (n) => {
        seen.push(n);
        return done({ type: 'none' });
      },
    ];
    const r = await runSteps(1, steps);
    expect(seen).toEqual([1, 2, 20]);
    expect(r).toEqual({ end: { requeue: { type: 'after', ms: 20 }, outcome: 'blocked' }, state: 20 });
  });

  it('puts the finalizer change into the end only when there is one', () => {
    expect(done({ type: 'none' }, 'deleted', 'remove').end).toEqual({
      requeue: { type: 'none' },
      outcome: 'deleted',
      finalizer: 'remove',
    });
    expect(done({ type: 'none' }).end).toEqual({ requeue: { type: 'none' }, outcome: 'ok' });
  });

  it('treats a list whose last step continues as a bug', async () => {
    await expect(runSteps(0, [(n) => next(n)])).rejects.toThrow(/last of 1 steps continued/);
  });
});
