import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { portCandidates } from './ports.js';

describe('portCandidates', () => {
  it('tries the preferred port first when it is inside the range', () => {
    expect(portCandidates('proxy-a', { min: 100, max: 109 }, 105)[0]).toBe(105);
  });

  it('ignores a preferred port outside the range', () => {
    const c = portCandidates('proxy-a', { min: 100, max: 109 }, 3128);
    expect(c).not.toContain(3128);
    expect(c).toHaveLength(10);
  });

  it('is a permutation of the range, stable per name', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.integer({ min: 1, max: 65000 }),
        fc.integer({ min: 0, max: 300 }),
        fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
        (name, min, span, preferred) => {
          const range = { min, max: Math.min(65535, min + span) };
          const c = portCandidates(name, range, preferred);
          expect(new Set(c).size).toBe(c.length);
          expect(c.length).toBe(range.max - range.min + 1);
          for (const p of c) expect(p >= range.min && p <= range.max).toBe(true);
          expect(portCandidates(name, range, preferred)).toEqual(c);
        },
      ),
    );
  });

  it('spreads different names over different starting ports', () => {
    const starts = new Set(
      Array.from({ length: 50 }, (_, i) => portCandidates(`proxy-${i}`, { min: 40000, max: 40999 })[0]),
    );
    expect(starts.size).toBeGreaterThan(40);
  });
});
