import { describe, expect, it } from 'vitest';
import { rendezvousPick } from './rendezvous.js';

const members = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `proxy-${i}` }));

describe('rendezvousPick', () => {
  it('ignores the order of the members', () => {
    const ms = members(7);
    for (let s = 0; s < 50; s++)
      expect(rendezvousPick(`s${s}`, [...ms].reverse())?.name).toBe(rendezvousPick(`s${s}`, ms)?.name);
  });

  it('spreads sessions over the members', () => {
    const ms = members(4);
    const counts = new Map<string, number>();
    for (let s = 0; s < 4000; s++) {
      const n = rendezvousPick(`session-${s}`, ms)?.name as string;
      counts.set(n, (counts.get(n) ?? 0) + 1);
    }
    for (const m of ms) expect(counts.get(m.name)).toBeGreaterThan(800);
  });

  it('moves only the sessions of a member that leaves', () => {
    const ms = members(5);
    const gone = 'proxy-2';
    const rest = ms.filter((m) => m.name !== gone);
    for (let s = 0; s < 500; s++) {
      const before = rendezvousPick(`x${s}`, ms)?.name;
      const after = rendezvousPick(`x${s}`, rest)?.name;
      if (before !== gone) expect(after).toBe(before);
    }
  });

  it('has no pick from no members', () => {
    expect(rendezvousPick('s', [])).toBeUndefined();
  });
});
