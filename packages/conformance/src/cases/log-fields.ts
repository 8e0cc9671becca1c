import { type CallOptions, ErrorCode } from '@egress-proxies/contract';
import type { LogLine } from '@egress-proxies/provider-utils';
import type { ConformanceCase } from '../case.js';
import type { CaseContext } from '../context.js';
import type { FaultKind } from '../control.js';
import { check, describeError } from '../failure.js';
import type { ConformanceFixture } from '../fixture.js';
import { observe, ok, outcome, stepsOf } from './helpers.js';
import { operationCalls } from './operation-calls.js';

function logs(f: ConformanceFixture): true | string {
  return f.profile.logging !== 'none' || 'profile.logging is "none": the provider writes no lines';
}

const shown = (v: unknown) => JSON.stringify(v) ?? 'undefined';

/** Faults whose backend code a failed call's line must carry: a plain failure and a refusal for now. */
const CODED_FAULTS: readonly FaultKind[] = ['internal', 'busy'];

/** Every line of one instance's call: the configured provider name and the instance's name. */
function aboutInstance(ctx: CaseContext, what: string, name: string, lines: readonly LogLine[]): void {
  for (const line of lines) {
    check(
      line.provider === ctx.config.providerName,
      `${what}: line "${line.msg}" carries provider ${shown(line.provider)}; the configured name is ${ctx.config.providerName}`,
    );
    check(
      line.name === name,
      `${what}: line "${line.msg}" carries name ${shown(line.name)}; the call is about instance ${name}`,
    );
  }
}

export const logFieldCases: ConformanceCase[] = [
  {
    id: 'OPS-18',
    group: 'operations',
    title:
      'every line written inside create, get and delete of one instance carries `provider` (the configured name) and `name` (the instance), on success and when any step fails',
    proves:
      "one machine's whole history, whichever step failed, is found by its name and its provider entry in any log store",
    gate: 'logging != none',
    applies: logs,
    timeoutMs: 60_000,
    async run(ctx) {
      const { provider } = ctx;
      let lines = 0;
      /** Runs one call with its own V2 logger and judges its lines; returns whether it resolved. */
      const judged = async (what: string, name: string, fn: (o: CallOptions) => Promise<unknown>) => {
        const l = ctx.logger(2);
        const s = await outcome(fn({ logger: l.logger }), what);
        aboutInstance(ctx, what, name, l.lines);
        lines += l.lines.length;
        return s;
      };
      const req = ctx.request();
      const created = await judged('create', req.name, (o) => ctx.create(req, o));
      if (!created.ok) check(false, `create failed: ${describeError(created.error)}`);
      const id = (created as { value: string }).value;
      await judged('the same create again (adoption)', req.name, (o) => ctx.create(req, o));
      await ctx.backend.stopInstance(req.name, req.placement.zone);
      await judged('create over its own stopped instance', req.name, (o) => ctx.create(req, o));
      await judged('get', req.name, (o) => provider.get(id, o));
      await judged('delete', req.name, (o) => provider.delete(id, o));
      await judged('get after delete', req.name, (o) => provider.get(id, o));
      await judged('delete of an absent instance', req.name, (o) => provider.delete(id, o));
      const unmarked = ctx.request();
      const unmarkedId = await ctx.seed({ name: unmarked.name, mark: 'none' });
      await judged('delete of an unmarked instance', unmarked.name, (o) => provider.delete(unmarkedId, o));
      const retired = ctx.config.unconfiguredZoneId?.(req.name);
      if (retired !== undefined)
        await judged('delete on a zone no longer configured', req.name, (o) => provider.delete(retired, o));
      check(lines > 0, 'create, get and delete wrote no line at V2');

      // Each step of each call failing once: the failure's lines are about the instance too.
      const probe = ctx.request();
      const probeId = await ok(ctx.create(probe), 'create');
      const steps = {
        create: stepsOf(await observe(ctx, () => ok(ctx.create(ctx.request()), 'create'))),
        get: stepsOf(await observe(ctx, () => ok(provider.get(probeId, ctx.opts()), 'get'))),
      };
      for (const step of steps.create) {
        const r = ctx.request();
        await ctx.backend.failNext(step, 1, 'internal');
        await judged(`create failing at ${step}`, r.name, (o) => ctx.create(r, o));
        await ctx.backend.reset();
      }
      for (const step of steps.get) {
        await ctx.backend.failNext(step, 1, 'internal');
        await judged(`get failing at ${step}`, probe.name, (o) => provider.get(probeId, o));
        await ctx.backend.reset();
      }
      const victim = ctx.request();
      const victimId = await ok(ctx.create(victim), 'create');
      const deleteSteps = stepsOf(
        await observe(ctx, () => ok(provider.delete(victimId, ctx.opts()), 'delete')),
      );
      for (const step of deleteSteps) {
        const r = ctx.request();
        const rid = await ok(ctx.create(r), 'create');
        await ctx.backend.failNext(step, 1, 'internal');
        await judged(`delete failing at ${step}`, r.name, (o) => provider.delete(rid, o));
        await ctx.backend.reset();
      }
    },
  },
  {
    id: 'OPS-19',
    group: 'operations',
    title:
      "when a backend call fails, a line of the call carries the backend's own code for the failure, with the error; a BACKEND_ERROR's details carry that code too",
    proves:
      'an operator reading the log of a failed reconcile sees what the backend answered (its errno, HTTP status or error code), not only the contract kind',
    gate: 'logging != none, backend.backendCode',
    applies: (f) => {
      const l = logs(f);
      if (l !== true) return l;
      return (
        typeof f.backend.backendCode === 'function' ||
        'backend.backendCode is absent: the harness cannot say which code its backend answers a fault with'
      );
    },
    timeoutMs: 60_000,
    async run(ctx) {
      const code = ctx.backend.backendCode!.bind(ctx.backend);
      let logger = ctx.logger(1).logger;
      const calls = await operationCalls(ctx, (signal) => (signal ? { logger, signal } : { logger }));
      let failed = 0;
      for (const { op, steps, fresh } of calls) {
        for (const step of steps) {
          for (const fault of CODED_FAULTS) {
            await ctx.backend.reset();
            const run = await fresh();
            const l = ctx.logger(1);
            logger = l.logger;
            await ctx.backend.failNext(step, 1, fault);
            const what = `${op} with ${fault} at ${step}`;
            const s = await outcome(run(new AbortController().signal), what);
            const err = s.ok ? undefined : await ctx.rejects(Promise.reject(s.error), what);
            await ctx.backend.reset();
            // A fault the provider tolerates or retries past is no failed call to report.
            if (!err) continue;
            failed += 1;
            const expected = String(code(step, fault));
            if (err.code === ErrorCode.BackendError) {
              check(
                Object.values(err.details).some((v) => String(v) === expected),
                `${what}: a ${ErrorCode.BackendError} error's details ${JSON.stringify(err.details)} do not carry the backend's code ${shown(expected)}`,
              );
            }
            const carrying = l.lines.filter((line) =>
              Object.entries(line).some(
                ([k, v]) =>
                  k !== 'msg' && (typeof v === 'string' || typeof v === 'number') && String(v) === expected,
              ),
            );
            check(
              carrying.length > 0,
              `${what} rejected but no line carries the backend's code ${shown(expected)}: ${JSON.stringify(l.lines)}`,
            );
            check(
              carrying.some((line) =>
                Object.entries(line).some(
                  ([k, v]) => /error/i.test(k) && typeof v === 'string' && v.trim() !== '',
                ),
              ),
              `${what}: the lines carrying the backend's code ${shown(expected)} carry no error field`,
            );
          }
        }
      }
      await ctx.backend.reset();
      if (failed === 0) ctx.skip('no injected fault made a call fail: nothing to report');
    },
  },
];
