import { describe, expect, it } from 'vitest';
import { SessionTable, sessionHash, tableSize } from './session-table.js';

const names = (n: number, prefix = 'crawl') => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
const owner = (t: SessionTable, session: string) => t.names[t.lookup(sessionHash(session))];

describe('SessionTable', () => {
  it('depends on the set of names only, not their order', () => {
    const a = new SessionTable(names(7));
    const b = new SessionTable(names(7).reverse());
    for (let s = 0; s < 500; s++) expect(owner(b, `s${s}`)).toBe(owner(a, `s${s}`));
  });

  it('gives every member the same share of the slots, within one', () => {
    for (const n of [3, 10, 100]) {
      const t = new SessionTable(names(n));
      const counts = new Map<number, number>();
      for (let slot = 0; slot < t.size; slot++) {
        const i = t.lookup(slot);
        counts.set(i, (counts.get(i) ?? 0) + 1);
      }
      expect(counts.size).toBe(n);
      const shares = [...counts.values()];
      expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
    }
  });

  it('moves the sessions of a member that leaves, and under 1% of the others', () => {
    const all = names(10);
    const before = new SessionTable(all);
    const after = new SessionTable(all.filter((n) => n !== 'crawl-3'));
    let others = 0;
    let moved = 0;
    let onGone = 0;
    for (let s = 0; s < 20_000; s++) {
      const was = owner(before, `x${s}`);
      const is = owner(after, `x${s}`);
      if (is === 'crawl-3') onGone++;
      if (was === 'crawl-3') continue;
      others++;
      if (is !== was) moved++;
    }
    expect(onGone).toBe(0);
    expect(others).toBeGreaterThan(15_000);
    expect(moved / others).toBeLessThan(0.01);
  });

  it('a joining member takes about its share, and under 1% moves between the others', () => {
    const all = names(10);
    const before = new SessionTable(all);
    const after = new SessionTable([...all, 'crawl-new']);
    let taken = 0;
    let shuffled = 0;
    const n = 20_000;
    for (let s = 0; s < n; s++) {
      const was = owner(before, `y${s}`);
      const is = owner(after, `y${s}`);
      if (is === 'crawl-new') taken++;
      else if (is !== was) shuffled++;
    }
    expect(taken / n).toBeGreaterThan(0.07);
    expect(taken / n).toBeLessThan(0.11);
    expect(shuffled / n).toBeLessThan(0.01);
  });

  it('skips refused members, spreading their sessions over the rest', () => {
    const t = new SessionTable(names(4));
    const refused = t.names.indexOf('crawl-1');
    const spread = new Map<string, number>();
    let kept = 0;
    for (let s = 0; s < 4000; s++) {
      const h = sessionHash(`z${s}`);
      const first = t.lookup(h);
      const i = t.lookup(h, (k) => k !== refused);
      if (first !== refused) kept += i === first ? 1 : 0;
      else spread.set(t.names[i] as string, (spread.get(t.names[i] as string) ?? 0) + 1);
    }
    // Every other session kept its member; the refused member's went to all three others.
    expect(kept + [...spread.values()].reduce((a, b) => a + b, 0)).toBe(4000);
    expect(spread.has('crawl-1')).toBe(false);
    expect(spread.size).toBe(3);
    expect(t.lookup(1, () => false)).toBe(-1);
  });

  it('has no owner without members, and a prime size that never shrinks below 65,537', () => {
    expect(new SessionTable([]).lookup(42)).toBe(-1);
    expect(tableSize(3)).toBe(65_537);
    expect(tableSize(6553)).toBe(65_537);
    const big = tableSize(10_000);
    expect(big).toBeGreaterThanOrEqual(100_000);
    for (let d = 2; d * d <= big; d++) expect(big % d).not.toBe(0);
  });
});
