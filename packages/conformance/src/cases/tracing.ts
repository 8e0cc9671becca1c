import type { CallOptions } from '@egress-proxies/contract';
import { SpanStatusCode } from '@opentelemetry/api';
import type { ConformanceCase } from '../case.js';
import type { CaseContext } from '../context.js';
import { check } from '../failure.js';
import type { ConformanceFixture } from '../fixture.js';
import type { RecordedSpan, SpanRecorder } from '../span-recorder.js';
import { until, within } from '../wait.js';
import { ABORT_BOUND_MS, CALL_BOUND_MS, expectAborted, ok, outcome, whileHeld } from './helpers.js';
import { operationCalls, type Run } from './operation-calls.js';

function makesSpans(f: ConformanceFixture): true | string {
  return f.profile.childSpans !== 'none' || 'profile.childSpans is "none": the provider makes no spans';
}

/** Fields every line of a call carries, which say nothing about the backend call itself. */
const LINE_FRAME = new Set(['level', 'msg', 'provider', 'type', 'traceId', 'spanId']);

const names = (spans: readonly RecordedSpan[]) => spans.map((s) => s.name || '(unnamed)').join(', ');

/** Runs one call under a fresh caller span and returns its outcome with the spans it made. */
async function traced(rec: SpanRecorder, op: string, run: Run, signal: AbortSignal) {
  const { parent, promise } = rec.underParent(`conformance ${op}`, () => run(signal));
  const s = await outcome(promise, op);
  return { s, parent, mine: rec.descendants(parent) };
}

/** Every span the call made outside the caller's trace: a span that lost its parent. */
function strays(rec: SpanRecorder, parent: RecordedSpan, mine: readonly RecordedSpan[]): RecordedSpan[] {
  return rec.spans().filter((x) => x !== parent && !mine.includes(x));
}

async function allEnd(mine: readonly RecordedSpan[], what: string): Promise<void> {
  // A backend call the provider could not cancel ends when the backend answers; wait for that.
  await until(
    () => mine.every((x) => x.ended),
    CALL_BOUND_MS,
    `${what}: spans never ended: ${names(mine.filter((x) => !x.ended))}`,
  );
}

async function eachStep(
  ctx: CaseContext,
  visit: (op: string, step: string, run: Run, rec: SpanRecorder) => Promise<void>,
): Promise<void> {
  for (const { op, steps, fresh } of await operationCalls(ctx)) {
    for (const step of steps) {
      await ctx.backend.reset();
      const run = await fresh();
      ctx.spans!.clear();
      await visit(op, step, run, ctx.spans!);
    }
  }
  await ctx.backend.reset();
}

export const tracingCases: ConformanceCase[] = [
  {
    id: 'OPS-13',
    group: 'operations',
    title:
      "every operation's backend calls are named spans under the caller's span, all ended when the call returns",
    proves:
      'a trace of a reconcile shows each backend call where it happened, nothing escapes into a trace of its own, and no span is left open',
    gate: 'childSpans != none',
    applies: makesSpans,
    spans: true,
    timeoutMs: 60_000,
    async run(ctx) {
      const rec = ctx.spans!;
      for (const { op, fresh } of await operationCalls(ctx)) {
        const run = await fresh();
        await ctx.backend.clearCalls();
        rec.clear();
        const { s, parent, mine } = await traced(rec, op, run, new AbortController().signal);
        check(s.ok, `${op} under a caller's span failed`);
        const calls = await ctx.backend.calls();
        check(
          calls.length === 0 || mine.length > 0,
          `${op} made ${calls.length} backend calls but no span under the caller's span`,
        );
        const lost = strays(rec, parent, mine);
        check(lost.length === 0, `${op} made spans outside the caller's trace: ${names(lost)}`);
        for (const x of mine) {
          check(x.name.trim() !== '', `${op} made a span without a name`);
          check(x.ended, `${op} returned with span ${x.name} still open`);
        }
      }
    },
  },
  {
    id: 'OPS-14',
    group: 'operations',
    title:
      'a failed call leaves a span with status ERROR and its message; every span ends on failure and abort',
    proves:
      'a failing backend call is visible as an error in the trace, and no failure or cancellation leaves a span open',
    gate: 'childSpans != none',
    applies: makesSpans,
    spans: true,
    timeoutMs: 120_000,
    async run(ctx) {
      await eachStep(ctx, async (op, step, run, rec) => {
        const what = `${op} failing at ${step}`;
        await ctx.backend.failNext(step, 1, 'internal');
        const { s, parent, mine } = await traced(rec, what, run, new AbortController().signal);
        await ctx.backend.reset();
        for (const x of mine) check(x.ended, `${what} returned with span ${x.name} still open`);
        const lost = strays(rec, parent, mine);
        check(lost.length === 0, `${what} made spans outside the caller's trace: ${names(lost)}`);
        if (s.ok) return;
        const failed = mine.filter((x) => x.status.code === SpanStatusCode.ERROR);
        check(failed.length > 0, `${what} rejected but none of its spans (${names(mine)}) has status ERROR`);
        for (const x of failed) {
          check(
            typeof x.status.message === 'string' && x.status.message.trim() !== '',
            `${what}: span ${x.name} has status ERROR without the error's message`,
          );
        }
      });
      await eachStep(ctx, async (op, step, run, rec) => {
        const what = `${op} aborted at ${step}`;
        const ac = new AbortController();
        let traced: { parent: RecordedSpan } | undefined;
        const s = await whileHeld(
          ctx,
          step,
          () => {
            const t = rec.underParent(`conformance ${what}`, () => run(ac.signal));
            traced = t;
            return t.promise;
          },
          async (pending) => {
            ac.abort();
            // The contract's bound for an abort (OPS-01's): a call that ignores its signal fails
            // here at once, instead of holding the kit until the case's no-progress timeout.
            await within(
              pending.promise,
              ABORT_BOUND_MS,
              `${what}: the call did not return within 1 s of its abort`,
            );
          },
        );
        check(!s.ok, `${what} resolved`);
        expectAborted(s.error, what);
        await allEnd(rec.descendants(traced!.parent), what);
      });
    },
  },
  {
    id: 'OPS-16',
    group: 'operations',
    title: "every log line written inside a call carries that call's trace ID and a span ID of its trace",
    proves:
      'a log line can be joined to the trace of the reconcile that wrote it, and concurrent calls never swap IDs',
    gate: 'logging != none',
    applies: (f) => f.profile.logging !== 'none' || 'profile.logging is "none": the provider writes no lines',
    spans: true,
    timeoutMs: 30_000,
    async run(ctx) {
      const rec = ctx.spans!;
      const linesOf = (what: string, parent: RecordedSpan, lines: readonly Record<string, unknown>[]) => {
        check(lines.length > 0, `${what} wrote no line at V2`);
        const ids = new Set([parent.spanId, ...rec.descendants(parent).map((x) => x.spanId)]);
        for (const line of lines) {
          check(
            line.traceId === parent.traceId,
            `${what}: line "${String(line.msg)}" carries traceId ${JSON.stringify(line.traceId)}; the call ran in trace ${parent.traceId}`,
          );
          check(
            typeof line.spanId === 'string' && ids.has(line.spanId),
            `${what}: line "${String(line.msg)}" carries spanId ${JSON.stringify(line.spanId)}, not the caller's span or one of its call's spans`,
          );
        }
      };
      const call = async <T>(what: string, fn: (o: CallOptions) => Promise<T>) => {
        const l = ctx.logger(2);
        const t = rec.underParent(`conformance ${what}`, () => fn({ logger: l.logger }));
        return { ...t, lines: l.lines, what };
      };
      // Two creates at once, each under its own caller span: a provider keeping "the current
      // trace" anywhere but the call's context hands one call's IDs to the other's lines.
      const a = ctx.request();
      const b = ctx.request();
      const ca = await call('create a', (o) => ctx.create(a, o));
      const cb = await call('create b', (o) => ctx.create(b, o));
      const [ida] = await Promise.all([ok(ca.promise, 'create a'), ok(cb.promise, 'create b')]);
      for (const c of [ca, cb]) linesOf(c.what, c.parent, c.lines);
      const ops: [string, (o: CallOptions) => Promise<unknown>][] = [
        ['get', (o) => ctx.provider.get(ida, o)],
        ['listByTag', (o) => ctx.provider.listByTag(o)],
        ['delete', (o) => ctx.provider.delete(ida, o)],
      ];
      for (const [what, fn] of ops) {
        const c = await call(what, fn);
        await ok(c.promise, what);
        linesOf(what, c.parent, c.lines);
      }
      const failing = await call('get after delete', (o) => ctx.provider.get(ida, o));
      await outcome(failing.promise, failing.what);
      if (failing.lines.length > 0) linesOf(failing.what, failing.parent, failing.lines);
    },
  },
  {
    id: 'OPS-17',
    group: 'operations',
    title:
      "a line written inside a backend call's span names the call as the span does, with its duration in ms (no longer than the whole operation took), and with the error when the call failed",
    proves:
      'a span and its log line can be matched by eye or by query, and a failed backend call says why in the log too',
    gate: 'logging != none, childSpans != none',
    applies: (f) => {
      if (f.profile.logging === 'none') return 'profile.logging is "none": the provider writes no lines';
      return makesSpans(f);
    },
    spans: true,
    timeoutMs: 60_000,
    async run(ctx) {
      const rec = ctx.spans!;
      let judged = 0;
      /** Judges every span of one call that has lines inside it. */
      // `elapsedMs` is the wall time of the whole operation: no backend call inside it took longer.
      const judge = (
        what: string,
        parent: RecordedSpan,
        lines: readonly Record<string, unknown>[],
        elapsedMs: number,
      ) => {
        for (const span of rec.descendants(parent)) {
          const inside = lines.filter((line) => line.spanId === span.spanId);
          if (inside.length === 0) continue;
          judged += 1;
          const call = span.name.slice(span.name.lastIndexOf('.') + 1).toLowerCase();
          const some = (p: (k: string, v: unknown) => boolean) =>
            inside.some((line) => Object.entries(line).some(([k, v]) => p(k, v)));
          check(
            some(
              (k, v) => !LINE_FRAME.has(k) && typeof v === 'string' && v !== '' && v.toLowerCase() === call,
            ),
            `${what}: no line inside span ${JSON.stringify(span.name)} names the call ${JSON.stringify(call)}: ${JSON.stringify(inside)}`,
          );
          check(
            some(
              (k, v) =>
                k !== 'level' && typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= elapsedMs + 1,
            ),
            `${what}: no line inside span ${span.name} carries the call's duration (a number of ms from 0 to the ${Math.ceil(elapsedMs)} ms the whole operation took)`,
          );
          if (span.status.code === SpanStatusCode.ERROR) {
            check(
              some((k, v) => /error/i.test(k) && typeof v === 'string' && v.trim() !== ''),
              `${what}: span ${span.name} failed but no line inside it carries the error`,
            );
          }
        }
      };
      let logger = ctx.logger(1).logger;
      const calls = await operationCalls(ctx, (signal) => (signal ? { logger, signal } : { logger }));
      for (const { op, steps, fresh } of calls) {
        // The operation clean, then failing at its first step.
        for (const fault of [undefined, steps[0]]) {
          await ctx.backend.reset();
          const run = await fresh();
          rec.clear();
          const l = ctx.logger(1);
          logger = l.logger;
          if (fault) await ctx.backend.failNext(fault, 1, 'internal');
          const what = fault ? `${op} failing at ${fault}` : op;
          const started = performance.now();
          const { parent, promise } = rec.underParent(`conformance ${what}`, () =>
            run(new AbortController().signal),
          );
          await outcome(promise, what);
          const elapsed = performance.now() - started;
          await ctx.backend.reset();
          judge(what, parent, l.lines, elapsed);
        }
      }
      // Adoption takes other calls (a start of a stopped machine): its lines too.
      const own = ctx.request();
      await ok(ctx.create(own), 'create');
      await ctx.backend.stopInstance(own.name, own.placement.zone);
      rec.clear();
      const l = ctx.logger(1);
      const started = performance.now();
      const adopt = rec.underParent('conformance adopt', () => ctx.create(own, { logger: l.logger }));
      await ok(adopt.promise, 'create over its own stopped instance');
      judge('create over its own stopped instance', adopt.parent, l.lines, performance.now() - started);
      if (judged === 0)
        ctx.skip(
          "no line was written inside a backend call's span: the provider logs its calls outside them",
        );
    },
  },
];
