import { randomUUID } from 'node:crypto';
import type { CallOptions } from '@egress-proxies/contract';
import type { ConformanceCase } from '../case.js';
import type { CaseContext } from '../context.js';
import { check } from '../failure.js';
import { findLeak, printable } from '../sentinels.js';
import { errorBattery } from './battery.js';
import { sweep, sweptFaults } from './fault-sweep.js';
import { caseSecrets, ok, outcome } from './helpers.js';

/** A verbosity above every tier, so a line at any level a provider writes is seen. */
const HIGHEST = 9;

interface Seen {
  what: string;
  value: unknown;
}

/**
 * Drives every path a secret could leak on, logging at the highest verbosity: the lifecycle,
 * adoption, every refusal, secondary resources, rejected and unreadable credentials at every step
 * of every operation, the error battery and every Checker condition. Returns every answer and
 * error it got; the lines land in `ctx.lines`.
 */
async function everyPath(ctx: CaseContext): Promise<Seen[]> {
  const seen: Seen[] = [];
  const { logger } = ctx.logger(HIGHEST);
  const o = (signal?: AbortSignal): CallOptions => (signal ? { logger, signal } : { logger });
  const keep = async (what: string, p: Promise<unknown>) => {
    const s = await outcome(p, what);
    seen.push({ what, value: s.ok ? s.value : s.error });
  };
  const { provider } = ctx;
  const req = ctx.request();
  const id = await ok(ctx.create(req, o()), 'create');
  await keep('get', provider.get(id, o()));
  await keep('listByTag', provider.listByTag(o()));
  // Adoption: a mark with an empty UID, and the provider's own instance stopped out of band.
  const adopt = ctx.request();
  await ctx.seed({ name: adopt.name, mark: { uid: '' } });
  await keep('create adopting a mark with an empty UID', ctx.create(adopt, o()));
  await ctx.backend.stopInstance(req.name, req.placement.zone);
  await keep('create over its own stopped instance', ctx.create(req, o()));
  for (const [what, mark] of [
    ['a foreign UID', { uid: randomUUID() }],
    ['an unmarked instance', 'none'],
  ] as const) {
    const r = ctx.request();
    await ctx.seed({ name: r.name, mark });
    await keep(`create over ${what}`, ctx.create(r, o()));
  }
  if (ctx.backend.corrupt) {
    const r = ctx.request();
    await ctx.seed({ name: r.name, mark: { uid: r.uid } });
    await ctx.backend.corrupt(r.name, r.placement.zone);
    await keep('create over an unreadable mark', ctx.create(r, o()));
    await keep('listByTag with an unreadable mark', provider.listByTag(o()));
  }
  if (provider.listSecondary && provider.deleteSecondary) {
    const gone = ctx.request();
    await ok(ctx.create(gone, o()), 'create');
    await ctx.backend.removeInstance(gone.name, gone.placement.zone);
    const listed = await ok(provider.listSecondary(o()), 'listSecondary');
    seen.push({ what: 'listSecondary', value: listed });
    for (const r of listed.filter((x) => x.instanceName === gone.name))
      await keep(`deleteSecondary(${r.id})`, provider.deleteSecondary(r.id, o()));
  }
  await keep('delete', provider.delete(id, o()));
  await keep('get after delete', provider.get(id, o()));
  // Rejected and unreadable credentials (where the harness can inject them) and an internal
  // failure, at every step of every operation.
  const paths = sweptFaults(ctx).filter((f) =>
    ['auth-rejected', 'credentials-unreadable', 'internal'].includes(f.fault),
  );
  await sweep(
    ctx,
    paths,
    async (r) => {
      seen.push({ what: r.what, value: r.result.ok ? r.result.value : r.result.error });
    },
    o,
  );
  for (const { what, err } of await errorBattery(ctx))
    seen.push({ what: `the error of ${what}`, value: err });
  if (ctx.checker) {
    await keep('a check', ctx.checker.check(o()));
    const target = ctx.config.checkTargets?.[0];
    for (const row of ctx.config.checkReasons ?? []) {
      if (!target || !ctx.backend.breakTarget) break;
      await ctx.backend.breakTarget(target, row.condition);
      await keep(`a check with ${row.condition}`, ctx.checker.check(o()));
      await ctx.backend.reset();
    }
  }
  return seen;
}

function noLeak(secrets: Map<string, string>, what: string, value: unknown): void {
  const leak = findLeak(printable(value), secrets);
  check(leak === undefined, `${leak} appears in ${what}`);
}

export const secretCases: ConformanceCase[] = [
  {
    id: 'OPS-03',
    group: 'operations',
    title:
      'cloud-init and credentials never appear in a log line, an error or a check result, at the highest verbosity, on every path',
    proves:
      'user-data and backend credentials cannot leak through logs, events or status conditions, also on adoption, refusals and rejected credentials',
    gate: 'always',
    applies: () => true,
    timeoutMs: 120_000,
    async run(ctx) {
      const secrets = caseSecrets(ctx);
      for (const { what, value } of await everyPath(ctx)) noLeak(secrets, `the answer of ${what}`, value);
      for (const line of ctx.lines) noLeak(secrets, `a log line (${line.msg})`, line);
    },
  },
  {
    id: 'OPS-15',
    group: 'operations',
    title:
      'cloud-init and credentials never appear in a span name, attribute, event or status, on every path',
    proves: 'a trace exported to a shared backend cannot leak user-data or credentials',
    gate: 'childSpans != none',
    applies: (f) =>
      f.profile.childSpans !== 'none' || 'profile.childSpans is "none": the provider makes no spans',
    spans: true,
    timeoutMs: 120_000,
    async run(ctx) {
      const secrets = caseSecrets(ctx);
      // Under a caller's span: some providers make spans only there (a transport wrapper).
      await ctx.spans!.underParent('conformance every path', () => everyPath(ctx)).promise;
      const spans = ctx.spans!.spans();
      check(spans.length > 0, 'no span was recorded on any path');
      for (const s of spans) noLeak(secrets, `span ${s.name}`, s);
    },
  },
];
