import { describe, expect, it } from 'vitest';
import { backoffViolations, type CreateCall } from './backoff-gaps.js';

const bases = { transientMs: 200, quotaMs: 1_000 };
const call = (o: Partial<CreateCall> & Pick<CreateCall, 'at' | 'outcome'>): CreateCall => ({
  name: 'proxy-a',
  epoch: 1,
  ...o,
});

describe('backoffViolations', () => {
  it('holds the gap from the end of a failed create to the next create to its tier', () => {
    const r = backoffViolations(
      [
        call({ at: 0, endedAt: 10, outcome: 'transient' }),
        call({ at: 150, endedAt: 160, outcome: 'quota' }),
        call({ at: 1_160, endedAt: 1_170, outcome: 'done' }),
      ],
      new Set(),
      bases,
    );
    expect(r.checked).toBe(2);
    expect(r.violations).toEqual([
      'proxy-a was created again 140.0 ms after a transient failure (backoff 200 ms)',
    ]);
  });

  it("measures a hung create's gap from its abort, not its start", () => {
    const calls = [call({ at: 0, endedAt: 15_000, outcome: 'hang' }), call({ at: 15_050, outcome: 'done' })];
    expect(backoffViolations(calls, new Set(), bases).violations).toHaveLength(1);
  });

  it('checks no gap across two operator lives, after a success or a Permanent failure, or for an exempt name', () => {
    const calls = [
      call({ at: 0, endedAt: 1, outcome: 'transient', epoch: 1 }),
      call({ at: 2, endedAt: 3, outcome: 'permanent', epoch: 2 }),
      call({ at: 4, endedAt: 5, outcome: 'done', epoch: 2 }),
      call({ at: 6, endedAt: 7, outcome: 'transient', epoch: 2, name: 'proxy-edited' }),
      call({ at: 8, outcome: 'done', epoch: 2, name: 'proxy-edited' }),
    ];
    expect(backoffViolations(calls, new Set(['proxy-edited']), bases)).toEqual({
      checked: 0,
      violations: [],
    });
  });
});
