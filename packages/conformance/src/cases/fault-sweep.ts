import { ErrorCode, ErrorKind, ProviderError } from '@egress-proxies/contract';
import type { ConformanceCase } from '../case.js';
import type { CaseContext } from '../context.js';
import { FAULT_KINDS, type FaultKind, type InjectableFault } from '../control.js';
import { check, describeError } from '../failure.js';
import { outcome } from './helpers.js';
import { operationCalls } from './operation-calls.js';

/** What the contract makes of one injected fault: the kind, and the codes allowed for it (any when absent). */
interface Expectation {
  kind: ErrorKind;
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

/** The faults to sweep for this fixture, each with what it must become. */
function faults(ctx: CaseContext): { fault: string; expect: Expectation; createOnly: boolean }[] {
  const declared: InjectableFault[] = [...FAULT_KINDS, ...(ctx.backend.faultKinds ?? [])];
  const out: { fault: string; expect: Expectation; createOnly: boolean }[] = [];
  for (const f of new Set(declared)) {
    // A real absence is judged by the NotFound cases; capacity only where the profile detects it.
    if (f === 'not-found') continue;
    if (f === 'out-of-capacity' && ctx.profile.quota !== 'detected') continue;
    out.push({ fault: f, expect: EXPECTED[f], createOnly: f === 'out-of-capacity' });
  }
  for (const x of ctx.backend.extraFaults ?? []) {
    out.push({
      fault: x.fault,
      expect: { kind: x.kind, ...(x.code ? { codes: [x.code] } : {}) },
      createOnly: false,
    });
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

export const faultSweepCases: ConformanceCase[] = [
  {
    id: 'OPS-08',
    group: 'operations',
    title: 'every fault kind at every step of every operation gives the kind and code the contract assigns',
    proves:
      'classification holds everywhere, not only where a case happened to look: only a real absence is NotFound, unclassified is Transient, rejected credentials are Permanent, capacity is QuotaExceeded at any create step',
    gate: 'always (out-of-capacity: quota = detected; extra kinds: backend.faultKinds, backend.extraFaults)',
    applies: () => true,
    timeoutMs: 120_000,
    async run(ctx) {
      let surfaced = 0;
      for (const { op, steps, fresh } of await operationCalls(ctx)) {
        for (const step of steps) {
          for (const { fault, expect, createOnly } of faults(ctx)) {
            if (createOnly && op !== 'create') continue;
            await ctx.backend.reset();
            const before = await namesOnBackend(ctx);
            const run = await fresh();
            await ctx.backend.failNext(step, 1, fault as FaultKind);
            const what = `${op} with a ${fault} fault at step ${step}`;
            const s = await outcome(run(new AbortController().signal), what);
            await ctx.backend.reset();
            await removeNewSince(ctx, before);
            // A provider may absorb a fault (a retried call, an address source that is optional).
            if (s.ok) continue;
            surfaced += 1;
            const err = s.error;
            check(ProviderError.isInstance(err), `${what}: not a ProviderError (${describeError(err)})`);
            check(err.kind === expect.kind, `${what}: expected ${expect.kind}, got ${describeError(err)}`);
            check(
              !expect.codes || expect.codes.includes(err.code),
              `${what}: expected code ${expect.codes?.join(' or ')}, got ${err.code}`,
            );
            check(
              err.provider === ctx.config.providerName && err.operation === op,
              `${what}: the error names ${JSON.stringify(err.provider)}/${JSON.stringify(err.operation)}, expected ${JSON.stringify(ctx.config.providerName)}/${op}`,
            );
          }
        }
      }
      await ctx.backend.reset();
      if (surfaced === 0) ctx.skip('the provider absorbed every injected fault: nothing was classified');
    },
  },
];
