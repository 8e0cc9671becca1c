import { describe, expect, it } from 'vitest';
import { WriteWindow } from './write-window.js';

describe('WriteWindow', () => {
  it('is full at the high mark and releases a waiter at the low mark', async () => {
    const w = new WriteWindow(100, 40);
    w.add(60);
    expect(w.full).toBe(false);
    w.add(40);
    expect(w.full).toBe(true);
    let released = false;
    const p = w.wait().then(() => {
      released = true;
    });
    w.done(50);
    await Promise.resolve();
    expect(released).toBe(false);
    w.done(10);
    await p;
    expect(released).toBe(true);
    expect(w.bytes).toBe(40);
  });

  it('rejects the current and later waits after fail()', async () => {
    const w = new WriteWindow(10);
    w.add(10);
    const p = w.wait();
    w.fail(new Error('closed'));
    await expect(p).rejects.toThrow('closed');
    await expect(w.wait()).rejects.toThrow('closed');
  });
});
