import { describe, expect, it } from 'vitest';
import { Periodic } from './periodic.js';

describe('Periodic', () => {
  it('runs at once, never overlaps, and a trigger during a run causes exactly one more', async () => {
    let runs = 0;
    let active = 0;
    let maxActive = 0;
    let release: () => void = () => {};
    const p = new Periodic(async () => {
      runs += 1;
      active += 1;
      maxActive = Math.max(maxActive, active);
      await new Promise<void>((r) => {
        release = r;
      });
      active -= 1;
    }, 60_000);
    p.start();
    p.trigger();
    p.trigger();
    release();
    await new Promise((r) => setTimeout(r, 0));
    release();
    await new Promise((r) => setTimeout(r, 0));
    expect(runs).toBe(2);
    expect(maxActive).toBe(1);
    await p.stop();
  });

  it('reports a failing run and keeps going', async () => {
    const errors: unknown[] = [];
    let n = 0;
    const p = new Periodic(
      async () => {
        n += 1;
        if (n === 1) throw new Error('boom');
      },
      5,
      (e) => errors.push(e),
    );
    p.start();
    await new Promise((r) => setTimeout(r, 50));
    await p.stop();
    expect(errors).toHaveLength(1);
    expect(n).toBeGreaterThan(1);
  });
});
