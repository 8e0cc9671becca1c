import { describe, expect, it } from 'vitest';
import { FakeClock } from './clock.js';
import { RateLimiter } from './rate-limiter.js';
import { WorkQueue } from './work-queue.js';

const noJitter = { jitter: 0 };

describe('WorkQueue', () => {
  it('hands out a key added twice while queued only once', async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    expect(q.length).toBe(0);
  });

  it('keeps FIFO order across keys', async () => {
    const q = new WorkQueue<number>({ clock: new FakeClock() });
    for (const k of [3, 1, 2]) q.add(k);
    expect([await q.get(), await q.get(), await q.get()]).toEqual([3, 1, 2]);
  });

  it('never hands a key in processing to a second worker, and re-queues it once on done', async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    q.add('a');
    const first = await q.get();
    expect(first).toBe('a');
    q.add('a');
    q.add('a');
    // Still processing: not available to another worker.
    expect(q.length).toBe(0);
    let second: string | undefined;
    const waiting = q.get().then((k) => {
      second = k;
    });
    await Promise.resolve();
    expect(second).toBeUndefined();
    q.done('a');
    await waiting;
    expect(second).toBe('a');
    q.done('a');
    expect(q.length).toBe(0);
    expect(q.inFlight).toBe(0);
  });

  it('does not re-queue a key on done when it was not added meanwhile', async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    q.add('a');
    await q.get();
    q.done('a');
    expect(q.length).toBe(0);
  });

  it('wakes a waiting worker when a key arrives', async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    const p = q.get();
    q.add('x');
    expect(await p).toBe('x');
    expect(q.inFlight).toBe(1);
  });

  it('hands distinct keys to concurrent workers', async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    const a = q.get();
    const b = q.get();
    q.add('k1');
    q.add('k1');
    q.add('k2');
    expect(new Set([await a, await b])).toEqual(new Set(['k1', 'k2']));
  });

  it('addAfter fires on the clock and keeps the earliest pending delay', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue<string>({ clock });
    q.addAfter('a', 1000);
    q.addAfter('a', 5000);
    expect(q.delayed).toBe(1);
    clock.advance(999);
    expect(q.length).toBe(0);
    clock.advance(1);
    expect(q.length).toBe(1);
    expect(clock.pending).toBe(0);
    // A shorter delay replaces a longer pending one.
    await q.get();
    q.done('a');
    q.addAfter('a', 5000);
    q.addAfter('a', 100);
    clock.advance(100);
    expect(q.length).toBe(1);
    clock.advance(10_000);
    expect(q.length).toBe(1);
  });

  it('addAfter with a zero delay adds at once', () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    q.addAfter('a', 0);
    expect(q.length).toBe(1);
  });

  it('rate-limited requeue backs off exponentially per key and forget resets it', () => {
    const clock = new FakeClock();
    const q = new WorkQueue<string>({ clock, rateLimiter: noJitter });
    expect(q.addRateLimited('a')).toBe(1000);
    clock.advance(1000);
    expect(q.addRateLimited('a')).toBe(2000);
    expect(q.addRateLimited('b')).toBe(1000);
    clock.advance(2000);
    expect(q.addRateLimited('a')).toBe(4000);
    expect(q.numRequeues('a')).toBe(3);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
    expect(q.addRateLimited('a')).toBe(1000);
  });

  it('shutDown stops new adds, drops delayed ones and releases idle workers', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue<string>({ clock });
    const idle = q.get();
    q.shutDown();
    expect(await idle).toBeUndefined();
    q.add('a');
    q.addAfter('b', 10);
    expect(q.length).toBe(0);
    expect(clock.pending).toBe(0);
    expect(await q.get()).toBeUndefined();
  });

  it('shutDown still hands out what was queued, then drains in-flight keys', async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    q.add('a');
    q.add('b');
    const a = await q.get();
    q.addAfter('c', 50);
    q.shutDown();
    expect(await q.get()).toBe('b');
    expect(await q.get()).toBeUndefined();
    let drained = false;
    const d = q.drain().then(() => {
      drained = true;
    });
    q.add(a!); // ignored after shutdown
    q.done('b');
    await Promise.resolve();
    expect(drained).toBe(false);
    q.done(a!);
    await d;
    expect(drained).toBe(true);
    expect(q.length).toBe(0);
  });

  it('get returns undefined when its signal aborts, and the key goes to the next worker', async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    const ac = new AbortController();
    const p = q.get(ac.signal);
    ac.abort();
    expect(await p).toBeUndefined();
    q.add('a');
    expect(q.length).toBe(1);
    expect(await q.get()).toBe('a');
  });

  it('done of an unknown key is ignored', () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    q.done('nope');
    expect(q.inFlight).toBe(0);
  });
});

describe('RateLimiter', () => {
  it('caps at maxMs', () => {
    const r = new RateLimiter<string>({ jitter: 0, tiers: { transient: { baseMs: 10, maxMs: 50 } } });
    expect([1, 2, 3, 4, 5].map(() => r.when('k'))).toEqual([10, 20, 40, 50, 50]);
    // Far past the point where 2^n overflows, still the cap.
    for (let i = 0; i < 2000; i++) r.when('k');
    expect(r.when('k')).toBe(50);
  });

  it('adds jitter within [delay, delay * (1 + jitter))', () => {
    const values = [0, 0.5, 0.999];
    let i = 0;
    const r = new RateLimiter<string>({ jitter: 0.5, random: () => values[i++ % values.length]! });
    expect(r.when('a')).toBe(1000);
    expect(r.when('b')).toBe(1250);
    expect(r.when('c')).toBe(1500);
  });

  it('counts the quota tier separately with its own longer base', () => {
    const r = new RateLimiter<string>({ jitter: 0 });
    expect(r.when('k', 'quota')).toBe(60_000);
    expect(r.when('k', 'transient')).toBe(1000);
    expect(r.when('k', 'quota')).toBe(120_000);
    expect(r.failures('k')).toBe(3);
    r.forget('k');
    expect(r.size).toBe(0);
  });

  it('rejects bad policies with the values named', () => {
    expect(() => new RateLimiter({ tiers: { transient: { baseMs: 0, maxMs: 1 } } })).toThrow(/baseMs=0/);
    expect(() => new RateLimiter({ tiers: { quota: { baseMs: 10, maxMs: 5 } } })).toThrow(/maxMs=5/);
    expect(() => new RateLimiter({ jitter: 2 })).toThrow(/got 2/);
  });
});

describe('FakeClock', () => {
  it('fires timers in time order and honours clearTimeout', () => {
    const c = new FakeClock(100);
    const fired: string[] = [];
    c.setTimeout(() => fired.push('b'), 20);
    const h = c.setTimeout(() => fired.push('x'), 5);
    c.setTimeout(() => fired.push('a'), 10);
    c.clearTimeout(h);
    c.advance(30);
    expect(fired).toEqual(['a', 'b']);
    expect(c.now()).toBe(130);
  });
});
