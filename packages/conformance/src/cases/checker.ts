import { CheckReason, type CheckResult } from '@egress-proxies/contract';
import type { ConformanceCase } from '../case.js';
import type { CaseContext } from '../context.js';
import { check, describeError } from '../failure.js';
import type { ConformanceFixture } from '../fixture.js';
import { settle, until, within } from '../wait.js';
import { ABORT_BOUND_MS, GATE_BOUND_MS, ok } from './helpers.js';

function hasChecker(f: ConformanceFixture): true | string {
  if (!f.checker) return 'the provider has no Checker';
  return (f.config.checkTargets?.length ?? 0) > 0 || 'the harness lists no checkTargets';
}

function targets(ctx: CaseContext): readonly string[] {
  return ctx.config.checkTargets ?? [];
}

export function inOrder(ctx: CaseContext, results: CheckResult[], what: string): void {
  const want = targets(ctx);
  check(Array.isArray(results), `${what}: check did not return an array`);
  const got = results.map((r) => r.target);
  check(
    JSON.stringify(got) === JSON.stringify(want),
    `${what}: results are for ${JSON.stringify(got)}; config order is ${JSON.stringify(want)}`,
  );
  for (const r of results) {
    check(
      typeof r.message === 'string' && r.message.trim() !== '',
      `${what}: ${r.target} (${r.reason}) has no message`,
    );
    check(
      typeof r.details === 'object' &&
        r.details !== null &&
        Object.values(r.details).every((v) => typeof v === 'string'),
      `${what}: ${r.target} has details that are not strings: ${JSON.stringify(r.details)}`,
    );
  }
}

function timeoutSignal(): { signal: AbortSignal; expire(): void } {
  const ac = new AbortController();
  return {
    signal: ac.signal,
    expire: () => ac.abort(new DOMException('the check round ran out of time', 'TimeoutError')),
  };
}

function allTimedOut(results: CheckResult[], what: string): void {
  for (const r of results) {
    check(!r.ready, `${what}: ${r.target} is ready`);
    check(r.reason === CheckReason.Timeout, `${what}: ${r.target} reports ${r.reason}, expected Timeout`);
  }
}

export const checkerCases: ConformanceCase[] = [
  {
    id: 'CHECK-01',
    group: 'checker',
    title: 'one result per target, in config order, all Ready on a healthy backend',
    proves: 'the health report is stable and complete',
    gate: 'checker, config.checkTargets',
    applies: hasChecker,
    async run(ctx) {
      const results = await ok(ctx.checker!.check(ctx.opts()), 'check');
      inOrder(ctx, results, 'check');
      for (const r of results) {
        check(
          r.ready && r.reason === CheckReason.Ready,
          `${r.target} is ${r.reason} on a healthy backend: ${r.message}`,
        );
        check(typeof r.address === 'string', `${r.target} has no address`);
        check(typeof r.details === 'object' && r.details !== null, `${r.target} has no details`);
      }
    },
  },
  {
    id: 'CHECK-02',
    group: 'checker',
    title: 'targets are checked concurrently',
    proves: "one slow host cannot delay the report of the others (shown by the backend's in-flight counter)",
    gate: 'checker, backend.steps.probe, two targets',
    applies: (f) => {
      const c = hasChecker(f);
      if (c !== true) return c;
      if (!f.backend.steps.probe) return 'the backend control names no probe step';
      const all = f.config.checkTargets ?? [];
      if (all.length >= 2) return true;
      return `the harness lists one Checker target (${JSON.stringify(all[0])}): there is no second target to run alongside it`;
    },
    async run(ctx) {
      const probe = ctx.backend.steps.probe!;
      const n = targets(ctx).length;
      const gate = ctx.backend.block(probe);
      const pending = settle(ctx.checker!.check(ctx.opts()));
      try {
        await until(
          () => ctx.backend.inFlight(probe) >= n,
          GATE_BOUND_MS,
          `the ${n} targets never had their ${probe} calls in flight together (at most ${ctx.backend.inFlight(probe)})`,
        );
      } finally {
        gate.release();
      }
      const s = await within(pending, GATE_BOUND_MS, 'check did not return after the probes were released');
      check(s.ok, `check failed: ${s.ok ? '' : describeError(s.error)}`);
      inOrder(ctx, s.value, 'check');
    },
  },
  {
    id: 'CHECK-03',
    group: 'checker',
    title: 'an expired signal returns promptly with Timeout',
    proves:
      "a hung host is reported as Timeout within the round's budget instead of stalling the health loop",
    gate: 'checker, backend.steps.probe',
    applies: (f) => {
      const c = hasChecker(f);
      if (c !== true) return c;
      return f.backend.steps.probe ? true : 'the backend control names no probe step';
    },
    async run(ctx) {
      const before = timeoutSignal();
      before.expire();
      const early = await within(
        settle(ctx.checker!.check(ctx.opts(before.signal))),
        ABORT_BOUND_MS,
        'check with an expired signal did not return within 1 s',
      );
      check(early.ok, `check with an expired signal rejected: ${early.ok ? '' : describeError(early.error)}`);
      inOrder(ctx, early.value, 'check with an expired signal');
      allTimedOut(early.value, 'check with an expired signal');

      const gate = ctx.backend.block(ctx.backend.steps.probe!);
      const t = timeoutSignal();
      const pending = settle(ctx.checker!.check(ctx.opts(t.signal)));
      try {
        await within(gate.reached, GATE_BOUND_MS, 'check never reached the probe');
        t.expire();
        const late = await within(
          pending,
          ABORT_BOUND_MS,
          'check did not return within 1 s of its signal expiring',
        );
        check(late.ok, `check whose signal expired rejected: ${late.ok ? '' : describeError(late.error)}`);
        inOrder(ctx, late.value, 'check whose signal expired');
        allTimedOut(late.value, 'check whose signal expired');
      } finally {
        gate.release();
      }
    },
  },
  {
    id: 'CHECK-04',
    group: 'checker',
    title: 'each broken condition reports its reason on its target only',
    proves: 'the reason table: users see why a host is not ready, and only that host',
    gate: 'checker, config.checkReasons, backend.breakTarget',
    applies: (f) => {
      const c = hasChecker(f);
      if (c !== true) return c;
      if (!f.backend.breakTarget) return 'the backend control has no breakTarget';
      return (f.config.checkReasons?.length ?? 0) > 0 || 'the harness lists no checkReasons';
    },
    async run(ctx) {
      const [first, ...others] = targets(ctx) as [string, ...string[]];
      for (const row of ctx.config.checkReasons!) {
        await ctx.backend.breakTarget!(first, row.condition);
        const results = await ok(ctx.checker!.check(ctx.opts()), `check with ${first} ${row.condition}`);
        await ctx.backend.reset();
        inOrder(ctx, results, `check with ${first} ${row.condition}`);
        const r = results[0]!;
        check(!r.ready, `${first} with ${row.condition} is ready`);
        check(
          r.reason === row.reason,
          `${first} with ${row.condition} reports ${r.reason}, expected ${row.reason}`,
        );
        check(r.message.length > 0, `${first} with ${row.condition} has an empty message`);
        for (const o of results.slice(1)) {
          check(o.ready, `${o.target} is ${o.reason} while only ${first} is broken (${row.condition})`);
        }
      }
      if (others.length === 0) ctx.note('one target: the "only that target" half is not shown');
    },
  },
];
