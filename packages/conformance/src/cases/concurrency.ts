import type { ConformanceCase } from '../case.js';
import type { CaseContext } from '../context.js';
import { check, describeError } from '../failure.js';
import { track, until, within } from '../wait.js';
import { oneInstance } from './get.js';
import {
  ABORT_BOUND_MS,
  CALL_BOUND_MS,
  expectAborted,
  GATE_BOUND_MS,
  observe,
  ok,
  stepsOf,
  viewsNamed,
} from './helpers.js';

/** The first backend step a clean create makes: every create of any name passes it. */
async function firstCreateStep(ctx: CaseContext): Promise<string> {
  const steps = stepsOf(await observe(ctx, () => ok(ctx.create(ctx.request()), 'create')));
  check(steps.length > 0, 'a clean create made no backend call the harness recorded');
  return steps[0]!;
}

export const concurrencyCases: ConformanceCase[] = [
  {
    id: 'OPS-10',
    group: 'operations',
    title: 'a create queued behind another of the same name rejects promptly when aborted',
    proves: 'a cancelled reconcile never waits for the lock another call of the same name holds',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      const step = await firstCreateStep(ctx);
      const req = ctx.request();
      const gate = ctx.backend.block(step);
      const first = track(ctx.create(req));
      try {
        await within(gate.reached, GATE_BOUND_MS, `the first create never reached step ${step}`);
        const ac = new AbortController();
        const queued = track(ctx.create(req, ctx.opts(ac.signal)));
        await new Promise((resolve) => setTimeout(resolve, 20));
        ac.abort();
        const q = await within(
          queued.promise,
          ABORT_BOUND_MS,
          'the queued create did not return within 1 s of its abort',
        );
        check(!q.ok, 'the aborted queued create resolved');
        expectAborted(q.error, 'the aborted queued create');
      } finally {
        gate.release();
      }
      const f = await within(first.promise, CALL_BOUND_MS, 'the first create did not return');
      check(
        f.ok,
        `the first create failed after the queued one was aborted: ${f.ok ? '' : describeError(f.error)}`,
      );
    },
  },
  {
    id: 'OPS-11',
    group: 'operations',
    title: 'creates of different names are inside the backend at the same time',
    proves: 'one slow machine never holds up every other Proxy (the per-name lock is per name)',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      const step = await firstCreateStep(ctx);
      const gate = ctx.backend.block(step);
      const a = track(ctx.create(ctx.request()));
      const b = track(ctx.create(ctx.request()));
      try {
        await until(
          () => gate.held >= 2 || (a.settled && b.settled),
          GATE_BOUND_MS,
          `two creates never were at step ${step} together`,
        ).catch(() => undefined);
        check(
          gate.held >= 2,
          `only ${gate.held} of two creates of different names reached step ${step}: they ran one by one`,
        );
      } finally {
        gate.release();
      }
      for (const [n, t] of [
        ['first', a],
        ['second', b],
      ] as const) {
        const s = await within(t.promise, CALL_BOUND_MS, `the ${n} create did not return`);
        check(s.ok, `the ${n} create failed: ${s.ok ? '' : describeError(s.error)}`);
      }
    },
  },
  {
    id: 'OPS-12',
    group: 'operations',
    title: 'aborting one call breaks neither a concurrent call nor a later one',
    proves: 'a cancelled reconcile cannot cut a shared connection out from under the others',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      const step = await firstCreateStep(ctx);
      const live = await oneInstance(ctx);
      const gate = ctx.backend.block(step);
      const ac = new AbortController();
      const victim = track(ctx.create(ctx.request(), ctx.opts(ac.signal)));
      const other = ctx.request();
      const bystander = track(ctx.create(other));
      try {
        await until(
          () => gate.held >= 2,
          GATE_BOUND_MS,
          `two creates never were at step ${step} together`,
        ).catch(() => undefined);
        ac.abort();
        const v = await within(
          victim.promise,
          ABORT_BOUND_MS,
          'the aborted create did not return within 1 s',
        );
        check(!v.ok, 'the aborted create resolved');
      } finally {
        gate.release();
      }
      const b = await within(bystander.promise, CALL_BOUND_MS, 'the concurrent create did not return');
      check(b.ok, `aborting one create broke a concurrent one: ${b.ok ? '' : describeError(b.error)}`);
      await ok(ctx.provider.get(live.id, ctx.opts()), 'a get after the abort');
      await ok(ctx.create(ctx.request()), 'a create after the abort');
      check((await viewsNamed(ctx, other.name)).length === 1, 'the concurrent create left no instance');
    },
  },
  {
    id: 'OPS-20',
    group: 'operations',
    title:
      'a third call of a name waits while the second holds the lock: a delete sent while a queued create runs reaches the backend only after it',
    proves:
      'the per-name lock still holds after its first holder leaves, so a finalizer never deletes under a create that is still building the machine',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      // One probe instance shows the steps of a clean create and of a delete.
      let probe = '';
      const createSteps = stepsOf(
        await observe(ctx, async () => {
          probe = await ok(ctx.create(ctx.request()), 'create');
        }),
      );
      const delSteps = stepsOf(
        await observe(ctx, () => ok(ctx.provider.delete(probe, ctx.opts()), 'delete')),
      );
      const { id, req } = await oneInstance(ctx);
      // The first call (a delete) waits at its last step; the second (a create) then holds the lock at one of its own.
      const held = ctx.backend.steps.remove ?? delSteps[delSteps.length - 1]!;
      const createHold = createSteps.find((s) => s !== held);
      if (!createHold) ctx.skip(`every create step is the delete's last step ${held}`);
      const first = ctx.backend.block(held);
      const del = track(ctx.provider.delete(id, ctx.opts()));
      let second: ReturnType<typeof track<string>> | undefined;
      let third: ReturnType<typeof track<void>> | undefined;
      let gate: ReturnType<CaseContext['backend']['block']> | undefined;
      try {
        await within(first.reached, GATE_BOUND_MS, `the first call (delete) never reached step ${held}`);
        second = track(ctx.create(req));
        // Let the create queue behind the delete, then hold it inside the lock at its own step.
        await new Promise((resolve) => setTimeout(resolve, 20));
        gate = ctx.backend.block(createHold!);
        first.release();
        const d = await within(del.promise, CALL_BOUND_MS, 'the first call (delete) did not return');
        check(d.ok, `the first call (delete) failed: ${d.ok ? '' : describeError(d.error)}`);
        await within(
          Promise.race([gate.reached, second.promise]),
          GATE_BOUND_MS,
          `the second call (create) never reached step ${createHold}`,
        );
        check(!second.settled, `the second call (create) returned before reaching step ${createHold}`);
        await ctx.backend.clearCalls();
        third = track(ctx.provider.delete(id, ctx.opts()));
        // Give a delete that skips the lock every chance to reach the backend.
        await new Promise((resolve) => setTimeout(resolve, 50));
        const reached = stepsOf(await ctx.backend.calls());
        check(
          reached.length === 0 && gate.held === 1 && !third.settled,
          `a delete sent while the second call (create) held the lock went on without waiting for it: ${
            third.settled
              ? 'it returned'
              : `it reached the backend (${reached.join(', ') || `step ${createHold}`})`
          }`,
        );
      } finally {
        first.release();
        gate?.release();
      }
      const c = await within(second!.promise, CALL_BOUND_MS, 'the second call (create) did not return');
      check(c.ok, `the second call (create) failed: ${c.ok ? '' : describeError(c.error)}`);
      const t = await within(third!.promise, CALL_BOUND_MS, 'the third call (delete) did not return');
      check(t.ok, `the third call (delete) failed: ${t.ok ? '' : describeError(t.error)}`);
    },
  },
];
