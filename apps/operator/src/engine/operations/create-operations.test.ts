import { describe, expect, it } from 'vitest';
import { ConcurrencyLimit } from './concurrency-limit.js';
import { CreateOperations } from './create-operations.js';

const meta = (provider: string, token = 't') => ({ provider, token, hash: 'h' });

function gate() {
  let open!: (id: string) => void;
  const p = new Promise<string>((r) => (open = r));
  return { p, open };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('ConcurrencyLimit', () => {
  it('grants in arrival order up to the limit, and an aborted waiter leaves the line', async () => {
    const l = new ConcurrencyLimit(1);
    await l.acquire();
    const order: string[] = [];
    const ac = new AbortController();
    const a = l.acquire(ac.signal).then(
      () => order.push('a'),
      (e: Error) => order.push(`a:${e.message}`),
    );
    const b = l.acquire().then(() => order.push('b'));
    ac.abort(new Error('gone'));
    await a;
    l.release();
    await b;
    expect(order).toEqual(['a:gone', 'b']);
    expect(l.held).toBe(1);
    expect(() => new ConcurrencyLimit(0)).toThrow(
      'concurrency limit must be an integer of at least 1, got 0',
    );
  });
});

describe('CreateOperations', () => {
  it('bounds each provider on its own and notifies on start and settle', async () => {
    const notified: string[] = [];
    const ops = new CreateOperations({ limit: 1, notify: (k) => notified.push(k) });
    const g = [gate(), gate(), gate()];
    ops.start('a', meta('p1'), () => g[0]!.p);
    const b = ops.start('b', meta('p1'), () => g[1]!.p);
    ops.start('c', meta('p2'), () => g[2]!.p);
    await settle();
    expect(b.aheadAtQueue).toBe(0);
    expect([ops.peek('a')?.state, ops.peek('b')?.state, ops.peek('c')?.state]).toEqual([
      'running',
      'queued',
      'running',
    ]);
    expect(ops.take('a')).toBeUndefined();
    g[0]!.open('id-a');
    await settle();
    expect(ops.peek('b')?.state).toBe('running');
    expect(ops.take('a')).toMatchObject({ state: 'succeeded', id: 'id-a' });
    expect(ops.peek('a')).toBeUndefined();
    expect(notified.filter((k) => k === 'a')).toEqual(['a', 'a']);
    expect(ops.inFlight('p1')).toBe(1);
  });

  it('cancels through the signal and stops the rest after the grace', async () => {
    const ops = new CreateOperations({ limit: 2 });
    const run = (s: AbortSignal) =>
      new Promise<string>((_r, reject) => s.addEventListener('abort', () => reject(s.reason)));
    ops.start('a', meta('p'), run);
    ops.start('b', meta('p'), run);
    ops.start('c', meta('p'), run);
    ops.cancel('a', 'deleted');
    await settle();
    expect(ops.take('a')).toMatchObject({ state: 'failed', cancelled: true });
    await ops.stop(10);
    expect(ops.take('b')?.state).toBe('failed');
    expect(ops.take('c')?.error).toMatchObject({ message: 'operator stopping' });
    expect(ops.inFlight()).toBe(0);
  });
});
