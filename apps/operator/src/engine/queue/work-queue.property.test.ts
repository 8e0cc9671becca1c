import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FakeClock } from './clock.js';
import { WorkQueue } from './work-queue.js';

type Op =
  | { t: 'add'; key: number }
  | { t: 'addAfter'; key: number; ms: number }
  | { t: 'get' }
  | { t: 'done'; pick: number }
  | { t: 'advance'; ms: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ t: fc.constant('add' as const), key: fc.integer({ min: 0, max: 4 }) }),
  fc.record({
    t: fc.constant('addAfter' as const),
    key: fc.integer({ min: 0, max: 4 }),
    ms: fc.integer({ min: 1, max: 50 }),
  }),
  fc.record({ t: fc.constant('get' as const) }),
  fc.record({ t: fc.constant('done' as const), pick: fc.nat() }),
  fc.record({ t: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 60 }) }),
);

describe('WorkQueue properties', () => {
  it('never hands out a key twice at once, and every add is followed by a hand-out of that key', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 80 }), async (ops) => {
        const clock = new FakeClock();
        const q = new WorkQueue<number>({ clock });
        const inFlight = new Set<number>();
        // Keys added (directly or by a fired delay) and not handed out since.
        const owed = new Set<number>();
        const pendingDelays = new Map<number, number>();
        const take = async () => {
          if (q.length === 0) return;
          const k = (await q.get())!;
          expect(inFlight.has(k)).toBe(false);
          inFlight.add(k);
          owed.delete(k);
        };
        for (const o of ops) {
          if (o.t === 'add') {
            q.add(o.key);
            owed.add(o.key);
          } else if (o.t === 'addAfter') {
            q.addAfter(o.key, o.ms);
            const at = clock.now() + o.ms;
            pendingDelays.set(o.key, Math.min(pendingDelays.get(o.key) ?? Number.POSITIVE_INFINITY, at));
          } else if (o.t === 'advance') {
            clock.advance(o.ms);
            for (const [k, at] of pendingDelays) {
              if (at <= clock.now()) {
                owed.add(k);
                pendingDelays.delete(k);
              }
            }
          } else if (o.t === 'get') await take();
          else if (inFlight.size > 0) {
            const keys = [...inFlight];
            const k = keys[o.pick % keys.length]!;
            inFlight.delete(k);
            q.done(k);
          }
          // Each queued key appears once: never more queued keys than distinct keys.
          expect(q.length).toBeLessThanOrEqual(5);
        }
        // Drain: finish everything in flight, then take until empty; every owed key comes out.
        for (;;) {
          for (const k of [...inFlight]) {
            inFlight.delete(k);
            q.done(k);
          }
          if (q.length === 0) break;
          await take();
        }
        expect([...owed]).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
