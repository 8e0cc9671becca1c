import { type CallOptions, ErrorCode, ErrorKind, ProviderError } from '@egress-proxies/contract';
import type { ConformanceCase } from '../case.js';
import type { CaseContext } from '../context.js';
import { FAULT_KINDS, type FaultKind, type InjectableFault } from '../control.js';
import { check, describeError } from '../failure.js';
import { findLeak, printable } from '../sentinels.js';
import type { Settled } from '../wait.js';
import { caseSecrets, outcome, resourceCounts, viewsNamed } from './helpers.js';
import { operationCalls, type Run } from './operation-calls.js';

/**
 * What the contract makes of one injected fault: the kind (or the one kind it must not be), and
 * the codes allowed for it (any when absent).
 */
interface Expectation {
  kind?: ErrorKind;
  not?: ErrorKind;
  codes?: readonly string[];
}

const EXPECTED: Record<Exclude<InjectableFault, 'not-found'>, Expectation> = {
  unreachable: { kind: ErrorKind.Transient, codes: [ErrorCode.Unreachable] },
  // BACKEND_ERROR where the backend's own busy answer (a 503) has no better code; details carry it.
  busy: { kind: ErrorKind.Transient, codes: [ErrorCode.Busy, ErrorCode.BackendError] },
  // Nobody classified it: an unknown failure is safest retried (2.5).
  internal: { kind: ErrorKind.Transient },
  'out-of-capacity': { kind: ErrorKind.QuotaExceeded, codes: [ErrorCode.QuotaExceeded] },
  'auth-rejected': { kind: ErrorKind.Permanent, codes: [ErrorCode.AuthFailed, ErrorCode.Forbidden] },
  'credentials-unreadable': { kind: ErrorKind.Transient, codes: [ErrorCode.CredentialsUnavailable] },
  timeout: { kind: ErrorKind.Transient, codes: [ErrorCode.Timeout] },
};

export interface SweptFault {
  fault: string;
  expect: Expectation;
  /** The operations it is injected into (all when absent). */
  ops?: readonly string[];
  /** It says a part is gone that is still there: a call that absorbs it has nothing to be judged on. */
  lies?: boolean;
}

/** The faults to sweep for this fixture, each with what it must become. */
export function sweptFaults(ctx: CaseContext): SweptFault[] {
  const declared: InjectableFault[] = [...FAULT_KINDS, ...(ctx.backend.faultKinds ?? [])];
  const out: SweptFault[] = [];
  for (const f of new Set(declared)) {
    if (f === 'not-found') {
      // get's NotFound is judged by the get cases and create's by CREATE-08; anywhere else a
      // backend "not found" is a part already gone or a race, never "the instance is gone" (2.2).
      out.push({
        fault: f,
        expect: { not: ErrorKind.NotFound },
        ops: ['delete', 'listByTag', 'listSecondary', 'deleteSecondary'],
        lies: true,
      });
      continue;
    }
    // Capacity only where the profile detects it, and only create needs any.
    if (f === 'out-of-capacity' && ctx.profile.quota !== 'detected') continue;
    out.push({ fault: f, expect: EXPECTED[f], ...(f === 'out-of-capacity' ? { ops: ['create'] } : {}) });
  }
  for (const x of ctx.backend.extraFaults ?? []) {
    out.push({ fault: x.fault, expect: { kind: x.kind, ...(x.code ? { codes: [x.code] } : {}) } });
  }
  return out;
}

async function namesOnBackend(ctx: CaseContext): Promise<Set<string>> {
  const names = new Set((await ctx.backend.instances()).map((v) => v.name));
  for (const r of await ctx.backend.resources()) names.add(r.instance);
  return names;
}

/** Removes, out of band, what one sweep round made, so hundreds of rounds never fill the backend. */
async function removeNewSince(ctx: CaseContext, before: ReadonlySet<string>): Promise<void> {
  for (const v of await ctx.backend.instances()) {
    if (!before.has(v.name)) await ctx.backend.removeInstance(v.name, v.zone);
  }
  const left = new Map<string, string | undefined>();
  for (const r of await ctx.backend.resources()) if (!before.has(r.instance)) left.set(r.instance, r.zone);
  for (const [name, zone] of left) await ctx.backend.removeResources(name, zone);
}

/** One round of a sweep: an operation with one fault injected at one step, and what it gave. */
export interface SweepRound {
  op: string;
  step: string;
  fault: SweptFault;
  what: string;
  run: Run;
  result: Settled<unknown>;
}

/**
 * Injects each fault once at every step of every operation, on a fresh call each time, and hands
 * every outcome to `visit` (with the backend reset, before the round's leftovers are removed).
 */
export async function sweep(
  ctx: CaseContext,
  faults: readonly SweptFault[],
  visit: (round: SweepRound) => Promise<void>,
  opts?: (signal?: AbortSignal) => CallOptions,
): Promise<void> {
  for (const { op, steps, fresh } of await operationCalls(ctx, opts)) {
    for (const step of steps) {
      for (const fault of faults) {
        if (fault.ops && !fault.ops.includes(op)) continue;
        await ctx.backend.reset();
        const before = await namesOnBackend(ctx);
        const run = await fresh();
        await ctx.backend.failNext(step, 1, fault.fault as FaultKind);
        const what = `${op} with a ${fault.fault} fault at step ${step}`;
        const result = await outcome(run(new AbortController().signal), what);
        await ctx.backend.reset();
        await visit({ op, step, fault, what, run, result });
        await removeNewSince(ctx, before);
      }
    }
  }
  await ctx.backend.reset();
}

/** A call that resolved despite its fault must have done its whole job. */
async function absorbedCleanly(ctx: CaseContext, round: SweepRound): Promise<void> {
  const { op, what, run, result } = round;
  const target = run.instance;
  if (!result.ok || !target) return;
  if (op === 'create' && ctx.profile.createReturn === 'blocking') {
    // A blocking create that returns promised a running instance under the ID it returned.
    const views = await viewsNamed(ctx, target.name);
    check(views.length === 1, `${what} resolved, leaving ${views.length} instances named ${target.name}`);
    const view = views[0]!;
    check(
      view.id === result.value,
      `${what} resolved with ${String(result.value)}; the instance is ${view.id}`,
    );
    check(view.running, `${what} resolved (create blocks) but the instance is ${view.state}`);
  } else if (op === 'delete' && ctx.profile.deleteReturn === 'waits') {
    const left = await viewsNamed(ctx, target.name);
    check(left.length === 0, `${what} resolved (delete waits) but the instance is still there`);
    const parts = await resourceCounts(ctx, target.name);
    check(parts === 'none', `${what} resolved (delete waits) but ${parts} of the instance is left`);
  }
}

export const faultSweepCases: ConformanceCase[] = [
  {
    id: 'OPS-08',
    group: 'operations',
    title:
      'every fault kind at every step of every operation gives the kind and code the contract assigns (a not-found outside get and create is never NotFound), or is absorbed with the job done',
    proves:
      'classification holds everywhere, not only where a case happened to look: only a real absence is NotFound, unclassified is Transient, rejected credentials are Permanent, capacity is QuotaExceeded at any create step; a create or a waiting delete that swallows a fault still made or removed everything',
    gate: 'always (out-of-capacity: quota = detected; extra kinds: backend.faultKinds, backend.extraFaults)',
    applies: () => true,
    timeoutMs: 180_000,
    async run(ctx) {
      const secrets = caseSecrets(ctx);
      let surfaced = 0;
      await sweep(ctx, sweptFaults(ctx), async (round) => {
        const { op, what, fault, result } = round;
        // A provider may absorb a fault (a retried call, an address source that is optional).
        if (result.ok) return fault.lies ? undefined : absorbedCleanly(ctx, round);
        surfaced += 1;
        const err = result.error;
        check(ProviderError.isInstance(err), `${what}: not a ProviderError (${describeError(err)})`);
        const { kind, not } = fault.expect;
        check(
          kind === undefined || err.kind === kind,
          `${what}: expected ${kind}, got ${describeError(err)}`,
        );
        check(err.kind !== not, `${what}: only get answers ${not}, got ${describeError(err)}`);
        check(
          !fault.expect.codes || fault.expect.codes.includes(err.code),
          `${what}: expected code ${fault.expect.codes?.join(' or ')}, got ${err.code}`,
        );
        check(
          err.provider === ctx.config.providerName && err.operation === op,
          `${what}: the error names ${JSON.stringify(err.provider)}/${JSON.stringify(err.operation)}, expected ${JSON.stringify(ctx.config.providerName)}/${op}`,
        );
        const leak = findLeak(printable(err), secrets);
        check(leak === undefined, `${leak} appears in the error of ${what}`);
      });
      for (const line of ctx.lines) {
        const leak = findLeak(printable(line), secrets);
        check(leak === undefined, `${leak} appears in a log line (${line.msg}) of the sweep`);
      }
      if (surfaced === 0) ctx.skip('the provider absorbed every injected fault: nothing was classified');
    },
  },
];
