import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from './errors.js';
import { internalTable, KeyedLock } from './keyed-lock.js';
import type { Release } from './lock-node.js';
import { watchedSignalCount } from './signal-watch.js';

// Runs after every pending microtask, so every promise the lock settled has been observed.
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Tracks a promise's outcome without awaiting it. */
function watch<T>(promise: Promise<T>) {
  const state: { status: 'pending' | 'resolved' | 'rejected'; value?: T; reason?: unknown } = {
    status: 'pending',
  };
  promise.then(
    (value) => {
      state.status = 'resolved';
      state.value = value;
    },
    (reason: unknown) => {
      state.status = 'rejected';
      state.reason = reason;
    },
  );
  return state;
}

describe('KeyedLock FIFO per key', () => {
  it('grants one key to many waiters in the order they asked', async () => {
    const lock = new KeyedLock();
    const first = await lock.acquire('k');
    const order: number[] = [];
    const done = Array.from({ length: 50 }, (_, i) =>
      lock.acquire('k').then((release) => {
        order.push(i);
        release();
      }),
    );
    await flush();
    expect(order).toEqual([]);
    first();
    await Promise.all(done);
    expect(order).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(lock.size).toBe(0);
  });

  it('runs withLock callbacks one at a time, in call order, across awaits', async () => {
    const lock = new KeyedLock();
    const order: number[] = [];
    let active = 0;
    let maxActive = 0;
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        lock.withLock('k', async () => {
          active++;
          maxActive = Math.max(maxActive, active);
          await flush();
          order.push(i);
          active--;
          return i * 2;
        }),
      ),
    );
    expect(maxActive).toBe(1);
    expect(order).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(results).toEqual(Array.from({ length: 30 }, (_, i) => i * 2));
    expect(lock.size).toBe(0);
  });
});

describe('KeyedLock keys are independent', () => {
  it('grants key B while key A is held, and keeps A waiters waiting', async () => {
    const lock = new KeyedLock();
    const releaseA = await lock.acquire('A');
    const secondA = watch(lock.acquire('A'));
    const b = watch(lock.acquire('B'));
    await flush();
    expect(b.status).toBe('resolved');
    expect(secondA.status).toBe('pending');
    expect(lock.isLocked('A')).toBe(true);
    expect(lock.isLocked('B')).toBe(true);
    expect(lock.size).toBe(2);
    (b.value as Release)();
    expect(lock.isLocked('B')).toBe(false);
    expect(secondA.status).toBe('pending');
    releaseA();
    await flush();
    expect(secondA.status).toBe('resolved');
    (secondA.value as Release)();
    expect(lock.size).toBe(0);
  });

  it('runs withLock on different keys concurrently', async () => {
    const lock = new KeyedLock();
    let releaseGate!: () => void;
    const gate = new Promise<void>((resolve) => {
      releaseGate = resolve;
    });
    const insideA = watch(lock.withLock('A', () => gate.then(() => 'a')));
    // B finishes while A's callback is still blocked on the gate.
    await expect(lock.withLock('B', () => 'b')).resolves.toBe('b');
    expect(insideA.status).toBe('pending');
    releaseGate();
    await flush();
    expect(insideA.value).toBe('a');
  });

  it('treats keys like Map keys (any type, SameValueZero)', async () => {
    const lock = new KeyedLock<unknown>();
    const objA = {};
    const objB = {};
    const releases = await Promise.all([
      lock.acquire(objA),
      lock.acquire(objB),
      lock.acquire(1),
      lock.acquire(Number.NaN),
    ]);
    expect(lock.size).toBe(4);
    const nanAgain = watch(lock.acquire(Number.NaN));
    await flush();
    expect(nanAgain.status).toBe('pending');
    for (const release of releases) release();
    await flush();
    (nanAgain.value as Release)();
    expect(lock.size).toBe(0);
  });
});

describe('KeyedLock abort while waiting', () => {
  it('rejects the aborted waiter with the reason; later waiters still get the lock in order', async () => {
    const lock = new KeyedLock();
    const holder = await lock.acquire('k');
    const controller = new AbortController();
    const order: string[] = [];
    let abortedGotLock = false;
    const w1 = lock.acquire('k', { signal: controller.signal }).then((release) => {
      abortedGotLock = true;
      release();
    });
    const w2 = lock.acquire('k').then((release) => {
      order.push('w2');
      return release;
    });
    const w3 = lock.acquire('k').then((release) => {
      order.push('w3');
      release();
    });
    const reason = new Error('stop waiting');
    controller.abort(reason);
    // Rejects while the holder still holds: the abort does not wait for the lock.
    await expect(w1).rejects.toBe(reason);
    expect(lock.isLocked('k')).toBe(true);
    holder();
    const releaseW2 = await w2;
    await flush();
    expect(order).toEqual(['w2']);
    releaseW2();
    await w3;
    expect(order).toEqual(['w2', 'w3']);
    expect(abortedGotLock).toBe(false);
    expect(lock.size).toBe(0);
  });

  it('rejects with an AbortError DOMException when aborted without a reason', async () => {
    const lock = new KeyedLock();
    const holder = await lock.acquire('k');
    const controller = new AbortController();
    const waiter = lock.acquire('k', { signal: controller.signal });
    controller.abort();
    const error = await waiter.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe('AbortError');
    holder();
    expect(lock.size).toBe(0);
  });

  it('falls back to an AbortError when a signal reports no reason', async () => {
    const lock = new KeyedLock();
    const holder = await lock.acquire('k');
    const target = new EventTarget();
    const signal = Object.assign(target, { aborted: false, reason: undefined }) as unknown as AbortSignal;
    const waiter = lock.acquire('k', { signal });
    (signal as { aborted: boolean }).aborted = true;
    target.dispatchEvent(new Event('abort'));
    const error = await waiter.catch((e: unknown) => e);
    expect((error as DOMException).name).toBe('AbortError');
    holder();
    expect(lock.size).toBe(0);
  });

  it('keeps the queue intact when the newest waiter aborts and another joins after it', async () => {
    const lock = new KeyedLock();
    const holder = await lock.acquire('k');
    const controller = new AbortController();
    const order: string[] = [];
    const w1 = lock.acquire('k').then((release) => {
      order.push('w1');
      release();
    });
    const tail = lock.acquire('k', { signal: controller.signal });
    controller.abort();
    await expect(tail).rejects.toThrow();
    const w3 = lock.acquire('k').then((release) => {
      order.push('w3');
      release();
    });
    holder();
    await Promise.all([w1, w3]);
    expect(order).toEqual(['w1', 'w3']);
    expect(lock.size).toBe(0);
  });

  it('leaves the key idle when the only waiter aborts and the holder releases', async () => {
    const lock = new KeyedLock();
    const holder = await lock.acquire('k');
    const controller = new AbortController();
    const waiter = lock.acquire('k', { signal: controller.signal });
    controller.abort();
    await expect(waiter).rejects.toThrow();
    expect(lock.isLocked('k')).toBe(true);
    holder();
    expect(lock.isLocked('k')).toBe(false);
    expect(internalTable(lock).size).toBe(0);
  });

  it('rejects every waiter sharing the signal, across keys and locks, and spares the others', async () => {
    const lockA = new KeyedLock();
    const lockB = new KeyedLock();
    const controller = new AbortController();
    const signal = controller.signal;
    const holders = await Promise.all([lockA.acquire('x'), lockA.acquire('y'), lockB.acquire('x')]);
    const shared = [
      watch(lockA.acquire('x', { signal })),
      watch(lockA.acquire('y', { signal })),
      watch(lockB.acquire('x', { signal })),
      watch(lockA.acquire('x', { signal })),
    ];
    const unsignalled = watch(lockA.acquire('x'));
    const otherSignal = watch(lockB.acquire('x', { signal: new AbortController().signal }));
    controller.abort('shutdown');
    await flush();
    for (const waiter of shared) expect(waiter).toMatchObject({ status: 'rejected', reason: 'shutdown' });
    expect(unsignalled.status).toBe('pending');
    expect(otherSignal.status).toBe('pending');
    for (const release of holders) release();
    await flush();
    expect(unsignalled.status).toBe('resolved');
    expect(otherSignal.status).toBe('resolved');
    (unsignalled.value as Release)();
    (otherSignal.value as Release)();
    expect(lockA.size + lockB.size).toBe(0);
    expect(watchedSignalCount()).toBe(0);
  });

  it('stops a withLock wait without ever calling fn', async () => {
    const lock = new KeyedLock();
    const holder = await lock.acquire('k');
    const controller = new AbortController();
    let called = false;
    const run = lock.withLock(
      'k',
      () => {
        called = true;
      },
      { signal: controller.signal },
    );
    controller.abort(new Error('gone'));
    await expect(run).rejects.toThrow('gone');
    holder();
    await flush();
    expect(called).toBe(false);
    expect(lock.size).toBe(0);
  });

  it('works with AbortSignal.timeout as a deadline', async () => {
    const lock = new KeyedLock();
    const holder = await lock.acquire('k');
    const error = await lock.acquire('k', { signal: AbortSignal.timeout(5) }).catch((e: unknown) => e);
    expect((error as DOMException).name).toBe('TimeoutError');
    holder();
    expect(lock.size).toBe(0);
  });
});

describe('KeyedLock abort after acquiring', () => {
  it('has no effect on an uncontended hold', async () => {
    const lock = new KeyedLock();
    const controller = new AbortController();
    const release = await lock.acquire('k', { signal: controller.signal });
    controller.abort();
    const next = watch(lock.acquire('k'));
    await flush();
    expect(lock.isLocked('k')).toBe(true);
    expect(next.status).toBe('pending');
    release();
    await flush();
    expect(next.status).toBe('resolved');
    (next.value as Release)();
    expect(lock.size).toBe(0);
  });

  it('has no effect once granted, even before the waiter has observed the grant', async () => {
    const lock = new KeyedLock();
    const holder = await lock.acquire('k');
    const controller = new AbortController();
    const waiter = watch(lock.acquire('k', { signal: controller.signal }));
    const after = watch(lock.acquire('k'));
    holder(); // grants the waiter synchronously; its promise continuation has not run yet
    controller.abort();
    await flush();
    expect(waiter.status).toBe('resolved');
    expect(after.status).toBe('pending');
    (waiter.value as Release)();
    await flush();
    expect(after.status).toBe('resolved');
    (after.value as Release)();
    expect(lock.size).toBe(0);
  });

  it('adds one listener per signal and removes it once every waiter is granted', async () => {
    const lock = new KeyedLock();
    const controller = new AbortController();
    const holder = await lock.acquire('k');
    const waiters = Array.from({ length: 50 }, () => lock.acquire('k', { signal: controller.signal }));
    // One listener however many waiters share the signal: Node warns past ten.
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    holder();
    for (const waiter of waiters) (await waiter)();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(watchedSignalCount()).toBe(0);
    expect(lock.size).toBe(0);
  });
});

describe('KeyedLock already-aborted signal', () => {
  it('rejects an uncontended acquire without taking the key', async () => {
    const lock = new KeyedLock();
    const reason = new Error('already');
    await expect(lock.acquire('k', { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(lock.size).toBe(0);
  });

  it('rejects a contended acquire without queueing', async () => {
    const lock = new KeyedLock();
    const holder = await lock.acquire('k');
    const signal = AbortSignal.abort();
    await expect(lock.acquire('k', { signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    holder();
    // Had the aborted call been queued, the key would still be held by it.
    expect(lock.isLocked('k')).toBe(false);
  });

  it('rejects withLock without calling fn', async () => {
    const lock = new KeyedLock();
    let called = false;
    const run = lock.withLock(
      'k',
      () => {
        called = true;
      },
      { signal: AbortSignal.abort() },
    );
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(called).toBe(false);
    expect(lock.size).toBe(0);
  });
});

describe('KeyedLock release', () => {
  it('is idempotent and never releases a later hold', async () => {
    const lock = new KeyedLock();
    const first = await lock.acquire('k');
    const second = watch(lock.acquire('k'));
    const third = watch(lock.acquire('k'));
    first();
    first();
    await flush();
    expect(second.status).toBe('resolved');
    expect(third.status).toBe('pending');
    first(); // a stale release while `second` holds
    await flush();
    expect(third.status).toBe('pending');
    expect(lock.isLocked('k')).toBe(true);
    (second.value as Release)();
    await flush();
    expect(third.status).toBe('resolved');
    (third.value as Release)();
    (second.value as Release)();
    expect(lock.size).toBe(0);
    // A stale release on an idle key must not disturb a fresh holder either.
    const fresh = await lock.acquire('k');
    first();
    (second.value as Release)();
    expect(lock.isLocked('k')).toBe(true);
    fresh();
    expect(lock.size).toBe(0);
  });

  it('hands each acquisition its own release function', async () => {
    const lock = new KeyedLock();
    const a = await lock.acquire('k');
    a();
    const b = await lock.acquire('k');
    expect(b).not.toBe(a);
    b();
  });
});

describe('KeyedLock withLock', () => {
  it('returns the value of fn, sync or async', async () => {
    const lock = new KeyedLock();
    await expect(lock.withLock('k', () => 7)).resolves.toBe(7);
    await expect(lock.withLock('k', async () => 'x')).resolves.toBe('x');
    expect(lock.size).toBe(0);
  });

  it('releases when fn rejects', async () => {
    const lock = new KeyedLock();
    const failure = new Error('async boom');
    await expect(
      lock.withLock('k', async () => {
        await flush();
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(lock.isLocked('k')).toBe(false);
  });

  it('releases when fn throws synchronously, and rejects instead of throwing', async () => {
    const lock = new KeyedLock();
    const failure = new Error('sync boom');
    const run = lock.withLock('k', () => {
      throw failure;
    });
    expect(run).toBeInstanceOf(Promise);
    await expect(run).rejects.toBe(failure);
    expect(lock.isLocked('k')).toBe(false);
  });

  it('releases on throw while others wait, and the next waiter runs', async () => {
    const lock = new KeyedLock();
    const holder = await lock.acquire('k');
    const failing = lock.withLock('k', () => {
      throw new Error('boom');
    });
    const next = lock.withLock('k', () => 'next');
    holder();
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next');
    expect(lock.size).toBe(0);
  });

  it('holds the key while fn runs', async () => {
    const lock = new KeyedLock();
    const seen = await lock.withLock('k', () => [lock.isLocked('k'), lock.size]);
    expect(seen).toEqual([true, 1]);
    expect(lock.isLocked('k')).toBe(false);
  });
});

describe('KeyedLock retains nothing for idle keys', () => {
  it('is empty after 100,000 distinct keys are locked and released', async () => {
    const lock = new KeyedLock<string>();
    const count = 100_000;
    const releases = await Promise.all(Array.from({ length: count }, (_, i) => lock.acquire(`key-${i}`)));
    expect(lock.size).toBe(count);
    for (const release of releases) release();
    expect(lock.size).toBe(0);
    expect(internalTable(lock).size).toBe(0);
  });

  it('is empty after 100,000 distinct keys go through withLock, contended and aborted waits included', async () => {
    const lock = new KeyedLock<number>();
    const count = 100_000;
    const controller = new AbortController();
    const abortedWaits: Promise<unknown>[] = [];
    const runs: Promise<number>[] = [];
    const holders = await Promise.all(Array.from({ length: count }, (_, i) => lock.acquire(i)));
    for (let i = 0; i < count; i++) {
      runs.push(lock.withLock(i, () => i, { signal: controller.signal }));
      if (i % 10 === 0)
        abortedWaits.push(lock.acquire(i, { signal: AbortSignal.abort() }).catch((e: unknown) => e));
    }
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    for (const release of holders) release();
    const values = await Promise.all(runs);
    await Promise.all(abortedWaits);
    expect(values[count - 1]).toBe(count - 1);
    expect(lock.size).toBe(0);
    expect(internalTable(lock).size).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(watchedSignalCount()).toBe(0);
  });
});

describe('KeyedLock bad input', () => {
  const lock = new KeyedLock();

  it('rejects a non-function fn, naming the parameter and type', async () => {
    const error = await lock.withLock('k', 42 as unknown as () => void).catch((e: unknown) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as InvalidArgumentError).code).toBe('KEYEDLOCK_INVALID_ARGUMENT');
    expect((error as Error).message).toBe('KeyedLock.withLock: fn must be a function, got a number');
    expect(lock.size).toBe(0);
  });

  it('rejects a signal that is not an AbortSignal', async () => {
    const bad = { signal: 'soon' } as unknown as { signal: AbortSignal };
    await expect(lock.acquire('k', bad)).rejects.toThrow(
      'KeyedLock.acquire: options.signal must be an AbortSignal, got a string',
    );
    await expect(lock.withLock('k', () => 1, bad)).rejects.toThrow('KeyedLock.withLock: options.signal');
    expect(lock.size).toBe(0);
  });

  it('rejects options that are not an object', async () => {
    await expect(lock.acquire('k', null as unknown as undefined)).rejects.toThrow(
      'KeyedLock.acquire: options must be an object, got null',
    );
  });

  it('rejects an undefined key instead of serializing every such caller', async () => {
    await expect(lock.acquire(undefined as unknown as string)).rejects.toThrow(
      'KeyedLock.acquire: key must not be undefined',
    );
    await expect(lock.withLock(undefined as unknown as string, () => 1)).rejects.toSatisfy((e: unknown) =>
      InvalidArgumentError.isInstance(e),
    );
    expect(lock.size).toBe(0);
  });
});
