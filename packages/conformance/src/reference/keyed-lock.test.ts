import { describe, expect, it } from 'vitest';
import { KeyedLock } from './keyed-lock.js';

const tick = () => new Promise<void>((r) => setImmediate(r));

describe('KeyedLock', () => {
  it('runs work of one key in order and different keys in parallel, keeping nothing for idle keys', async () => {
    const lock = new KeyedLock();
    const order: string[] = [];
    let releaseA: () => void = () => {};
    const a = lock.run('k', () =>
      new Promise<void>((r) => (releaseA = () => r())).then(() => void order.push('a')),
    );
    const b = lock.run('k', async () => void order.push('b'));
    const c = lock.run('other', async () => void order.push('c'));
    await c;
    await tick();
    expect(order).toEqual(['c']);
    releaseA();
    await Promise.all([a, b]);
    expect(order).toEqual(['c', 'a', 'b']);
    expect(lock.size).toBe(0);
  });

  it('stops waiting when the signal aborts, without breaking the queue', async () => {
    const lock = new KeyedLock();
    let release: () => void = () => {};
    const first = lock.run('k', () => new Promise<void>((r) => (release = () => r())));
    const ac = new AbortController();
    const waiting = lock.run('k', async () => 'ran', ac.signal);
    const third = lock.run('k', async () => 'third');
    ac.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    release();
    await first;
    await expect(third).resolves.toBe('third');
    expect(lock.size).toBe(0);
  });
});
