import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { internalTable, KeyedLock } from './keyed-lock.js';
import type { Release } from './lock-node.js';
import { watchedSignalCount } from './signal-watch.js';

const KEYS = ['a', 'b', 'c'] as const;
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

type Command =
  | { kind: 'acquire'; key: number; signal: 'none' | 'own' | 'shared' }
  | { kind: 'release'; key: number }
  | { kind: 'releaseAgain'; pick: number }
  | { kind: 'abort'; pick: number }
  | { kind: 'abortShared' }
  | { kind: 'flush' };

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('acquire' as const),
      key: fc.nat(KEYS.length - 1),
      signal: fc.constantFrom('none' as const, 'own' as const, 'shared' as const),
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({ kind: fc.constant('release' as const), key: fc.nat(KEYS.length - 1) }),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constant('releaseAgain' as const), pick: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('abort' as const), pick: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('abortShared' as const) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('flush' as const) }), weight: 2 },
);

/** One acquire call: what the reference model says about it, and what the lock actually did. */
interface Call {
  id: number;
  key: string;
  controller: AbortController | undefined;
  model: 'waiting' | 'holding' | 'released' | 'aborted';
  observed: 'pending' | 'resolved' | 'rejected';
  release: Release | undefined;
  reason: unknown;
}

/**
 * Drives a KeyedLock and a plain reference model (an array queue per key whose head holds)
 * through the same random interleaving. Promise continuations only run on `flush`, so grants
 * that the lock made synchronously pile up unobserved between flushes, as they do for real.
 */
async function runScenario(commands: Command[]): Promise<void> {
  const lock = new KeyedLock();
  const calls: Call[] = [];
  const queues = new Map<string, Call[]>(KEYS.map((k) => [k, []]));
  const observedHolders = new Map<string, Call>();
  const grantOrder = new Map<string, number[]>(KEYS.map((k) => [k, []]));
  let shared = new AbortController();
  const sharedMembers: Call[] = [];
  // Continuations run outside the command loop; a throw there would escape the property, so
  // violations are collected and asserted after every step instead.
  const violations: string[] = [];

  const modelRelease = (call: Call) => {
    const queue = queues.get(call.key) as Call[];
    expect(queue[0]).toBe(call);
    queue.shift();
    call.model = 'released';
    const next = queue[0];
    if (next) next.model = 'holding';
  };
  const modelAbort = (call: Call) => {
    if (call.model !== 'waiting') return; // granted already: the abort must change nothing
    const queue = queues.get(call.key) as Call[];
    queue.splice(queue.indexOf(call), 1);
    call.model = 'aborted';
  };
  const checkState = () => {
    let busy = 0;
    for (const key of KEYS) {
      const queue = queues.get(key) as Call[];
      expect(lock.isLocked(key)).toBe(queue.length > 0);
      if (queue.length > 0) busy++;
    }
    expect(lock.size).toBe(busy);
  };

  const acquire = (key: string, signal: 'none' | 'own' | 'shared') => {
    const controller = signal === 'own' ? new AbortController() : signal === 'shared' ? shared : undefined;
    const queue = queues.get(key) as Call[];
    const call: Call = {
      id: calls.length,
      key,
      controller,
      model: queue.length === 0 ? 'holding' : 'waiting',
      observed: 'pending',
      release: undefined,
      reason: undefined,
    };
    calls.push(call);
    queue.push(call);
    if (signal === 'shared') sharedMembers.push(call);
    lock.acquire(key, controller ? { signal: controller.signal } : undefined).then(
      (release) => {
        // Mutual exclusion: nobody else may be holding this key when a grant is observed.
        const other = observedHolders.get(key);
        if (other) violations.push(`call ${call.id} granted ${key} while call ${other.id} holds it`);
        if (call.model !== 'holding')
          violations.push(`call ${call.id} granted but the model says ${call.model}`);
        observedHolders.set(key, call);
        call.observed = 'resolved';
        call.release = release;
        (grantOrder.get(key) as number[]).push(call.id);
      },
      (reason: unknown) => {
        if (call.model !== 'aborted')
          violations.push(`call ${call.id} rejected but the model says ${call.model}`);
        call.observed = 'rejected';
        call.reason = reason;
      },
    );
  };

  const releaseHead = (key: string) => {
    const head = (queues.get(key) as Call[])[0];
    if (!head?.release) return false; // grant not observed yet: the caller has no release
    observedHolders.delete(key);
    head.release();
    modelRelease(head);
    return true;
  };

  for (const cmd of commands) {
    switch (cmd.kind) {
      case 'acquire':
        acquire(KEYS[cmd.key] as string, cmd.signal);
        break;
      case 'release':
        releaseHead(KEYS[cmd.key] as string);
        break;
      case 'releaseAgain': {
        // Prefer a stale release of a key someone else holds now: the case that could do harm.
        const done = calls.filter((c) => c.model === 'released');
        const harmful = done.filter((c) => (queues.get(c.key) as Call[]).length > 0);
        const pool = harmful.length > 0 ? harmful : done;
        const stale = pool[cmd.pick % Math.max(pool.length, 1)];
        stale?.release?.(); // must be a no-op, whoever holds the key now
        break;
      }
      case 'abort': {
        const own = calls.filter(
          (c) => c.controller && c.controller !== shared && !c.controller.signal.aborted,
        );
        const target = own[cmd.pick % Math.max(own.length, 1)];
        if (target) {
          target.controller?.abort(new Error(`abort ${target.id}`));
          modelAbort(target);
        }
        break;
      }
      case 'abortShared':
        shared.abort(new Error('shared'));
        for (const call of sharedMembers.splice(0)) modelAbort(call);
        shared = new AbortController();
        break;
      case 'flush':
        await flush();
        break;
    }
    checkState();
    expect(violations).toEqual([]);
  }

  await flush();
  expect(violations).toEqual([]);
  for (const call of calls) {
    const expected = { waiting: 'pending', holding: 'resolved', released: 'resolved', aborted: 'rejected' }[
      call.model
    ];
    expect(call.observed).toBe(expected);
    if (call.model === 'aborted') {
      expect(call.reason).toBe(call.controller?.signal.reason);
    }
  }

  // Drain: release every holder until the lock is idle; every non-aborted call must get its turn.
  for (let progressed = true; progressed; ) {
    progressed = false;
    for (const key of KEYS) progressed = releaseHead(key) || progressed;
    await flush();
  }
  checkState();
  expect(violations).toEqual([]);
  for (const key of KEYS) {
    const expected = calls.filter((c) => c.key === key && c.model !== 'aborted').map((c) => c.id);
    expect(grantOrder.get(key)).toEqual(expected);
  }
  expect(lock.size).toBe(0);
  expect(internalTable(lock).size).toBe(0);
  expect(watchedSignalCount()).toBe(0);
}

describe('KeyedLock under random interleavings', () => {
  it('keeps mutual exclusion and per-key FIFO among non-aborted waiters', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 60, size: 'max' }), (commands) =>
        runScenario(commands),
      ),
      { numRuns: 400 },
    );
  });
});
