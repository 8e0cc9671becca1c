import { ConformanceFailure } from './failure.js';

/** The outcome of a promise, captured instead of thrown. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

export async function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * Waits for `promise` at most `ms`; fails the case with `what` when it takes longer. The bound
 * keeps a provider that hangs from hanging the suite; it is a liveness limit, not a timing test.
 */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ConformanceFailure(`${what} (waited ${ms} ms)`)), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Lets every pending callback, timer of 0 ms and I/O poll run a few times. */
export async function drain(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Polls `predicate` until it holds, at most `ms`; fails the case with `what` otherwise. */
export async function until(predicate: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new ConformanceFailure(`${what} (waited ${ms} ms)`);
    await new Promise<void>((resolve) => setTimeout(resolve, 2));
  }
}

/** A promise plus a flag saying whether it has settled yet. */
export function track<T>(promise: Promise<T>): { promise: Promise<Settled<T>>; readonly settled: boolean } {
  let done = false;
  const p = settle(promise).then((s) => {
    done = true;
    return s;
  });
  return {
    promise: p,
    get settled() {
      return done;
    },
  };
}
