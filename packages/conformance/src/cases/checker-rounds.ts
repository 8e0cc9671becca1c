import { CheckReason } from '@egress-proxies/contract';
import type { ConformanceCase } from '../case.js';
import { check, describeError } from '../failure.js';
import type { ConformanceFixture } from '../fixture.js';
import { settle, within } from '../wait.js';
import { inOrder } from './checker.js';
import { ABORT_BOUND_MS, GATE_BOUND_MS, observe, ok, stepsOf } from './helpers.js';

function hasChecker(f: ConformanceFixture): true | string {
  if (!f.checker) return 'the provider has no Checker';
  return (f.config.checkTargets?.length ?? 0) > 0 || 'the harness lists no checkTargets';
}

export const checkerRoundCases: ConformanceCase[] = [
  {
    id: 'CHECK-05',
    group: 'checker',
    title: 'every round asks the backend: a Ready round followed by an outage reports the outage',
    proves: 'the health report is never an old answer from a cache',
    gate: 'checker, config.checkTargets',
    applies: hasChecker,
    async run(ctx) {
      const first = await ok(ctx.checker!.check(ctx.opts()), 'the first check');
      inOrder(ctx, first, 'the first check');
      check(
        first.every((r) => r.ready),
        'the first check on a healthy backend is not all Ready',
      );
      await ctx.backend.setUnreachable(true);
      const down = await ok(ctx.checker!.check(ctx.opts()), 'check with the backend unreachable');
      inOrder(ctx, down, 'check with the backend unreachable');
      for (const r of down) check(!r.ready, `${r.target} is still Ready with the backend unreachable`);
      await ctx.backend.reset();
      const back = await ok(ctx.checker!.check(ctx.opts()), 'check after the outage');
      for (const r of back) check(r.ready, `${r.target} is ${r.reason} after the outage ended`);
    },
  },
  {
    id: 'CHECK-06',
    group: 'checker',
    title: 'a deadline at any stage of a check reports Timeout, whatever the stage',
    proves: 'a host hung in its second or third call is Timeout, not an API error or a stale reason',
    gate: 'checker, config.checkTargets',
    applies: hasChecker,
    async run(ctx) {
      const steps = stepsOf(await observe(ctx, () => ok(ctx.checker!.check(ctx.opts()), 'check')));
      if (steps.length === 0) ctx.skip('a check made no backend call the harness records');
      for (const step of steps) {
        await ctx.backend.reset();
        const gate = ctx.backend.block(step);
        const ac = new AbortController();
        const pending = settle(ctx.checker!.check(ctx.opts(ac.signal)));
        try {
          await within(
            Promise.race([gate.reached, pending]),
            GATE_BOUND_MS,
            `check never reached step ${step}`,
          );
          ac.abort(new DOMException('the check round ran out of time', 'TimeoutError'));
          const s = await within(
            pending,
            ABORT_BOUND_MS,
            `check held at ${step} did not return within 1 s of its deadline`,
          );
          check(
            s.ok,
            `check held at ${step} rejected at its deadline: ${s.ok ? '' : describeError(s.error)}`,
          );
          inOrder(ctx, s.value, `check held at ${step}`);
          check(
            s.value.some((r) => r.reason === CheckReason.Timeout),
            `no target reported Timeout when the round ended at step ${step}`,
          );
          for (const r of s.value) {
            check(
              r.ready || r.reason === CheckReason.Timeout,
              `${r.target} reported ${r.reason} when the round ended at step ${step}; an unfinished target is Timeout`,
            );
          }
        } finally {
          gate.release();
        }
      }
    },
  },
];
