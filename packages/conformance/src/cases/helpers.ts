import { ErrorCode, ErrorKind, type Instance, InstanceState, ProviderError } from '@egress-proxies/contract';
import type { CaseContext } from '../context.js';
import type { BackendCall, BackendInstanceView, StepGate } from '../control.js';
import { ConformanceFailure, check, describeError } from '../failure.js';
import { type Settled, settle, within } from '../wait.js';

/** How long after an abort a call may take to return. */
export const ABORT_BOUND_MS = 1_000;
/** How long a case waits for a call to reach a blocked step. */
export const GATE_BOUND_MS = 3_000;
/** How long a case waits for a call it expects to finish. */
export const CALL_BOUND_MS = 5_000;

export function expectKind(err: unknown, kind: ErrorKind, what: string): void {
  check(ProviderError.isInstance(err), `${what}: expected a ProviderError, got ${describeError(err)}`);
  check(err.kind === kind, `${what}: expected ${kind}, got ${describeError(err)}`);
  // Messages name the bad value (2.5): an error that says nothing names nothing.
  check(err.reason.trim() !== '', `${what}: the error says nothing (${describeError(err)})`);
}

/** Awaits `promise` within the call bound; fails the case if it rejects. */
export async function ok<T>(promise: Promise<T>, what: string): Promise<T> {
  const s = await within(settle(promise), CALL_BOUND_MS, `${what} did not return`);
  if (!s.ok) throw new ConformanceFailure(`${what} failed: ${describeError(s.error)}`, { cause: s.error });
  return s.value;
}

/** Awaits `promise` within the call bound and returns its outcome. */
export async function outcome<T>(promise: Promise<T>, what: string): Promise<Settled<T>> {
  return within(settle(promise), CALL_BOUND_MS, `${what} did not return`);
}

/** The distinct steps of a call log, in first-seen order. */
export function stepsOf(calls: readonly BackendCall[]): string[] {
  const seen: string[] = [];
  for (const c of calls) if (!seen.includes(c.step)) seen.push(c.step);
  return seen;
}

/** Runs `fn` and returns the backend calls it made. */
export async function observe(ctx: CaseContext, fn: () => Promise<unknown>): Promise<BackendCall[]> {
  await ctx.backend.clearCalls();
  await fn();
  return [...(await ctx.backend.calls())];
}

export async function viewsNamed(ctx: CaseContext, name: string): Promise<BackendInstanceView[]> {
  return (await ctx.backend.instances()).filter((v) => v.name === name);
}

/** The one backend instance called `name`; fails the case when there are none or several. */
export async function onlyView(ctx: CaseContext, name: string, what: string): Promise<BackendInstanceView> {
  const views = await viewsNamed(ctx, name);
  check(
    views.length === 1,
    `${what}: expected exactly one backend instance named ${name}, found ${views.length}`,
  );
  return views[0]!;
}

/** `kind=count` of the resources belonging to `name`, sorted, so two inventories compare as strings. */
export async function resourceCounts(ctx: CaseContext, name: string): Promise<string> {
  const counts = new Map<string, number>();
  for (const r of await ctx.backend.resources()) {
    if (r.instance === name) counts.set(r.kind, (counts.get(r.kind) ?? 0) + 1);
  }
  return (
    [...counts]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, n]) => `${k}=${n}`)
      .join(',') || 'none'
  );
}

/** Everything the backend holds for `name` (instance and resources), to show it was left untouched. */
export async function snapshot(ctx: CaseContext, name: string): Promise<string> {
  const views = (await viewsNamed(ctx, name)).map((v) => ({ ...v }));
  const resources = (await ctx.backend.resources())
    .filter((r) => r.instance === name)
    .map((r) => `${r.kind}:${r.name}`)
    .sort();
  return JSON.stringify({ views, resources });
}

/** A backend state from the table that maps to `expected` (and has no address unless needed). */
export function stateFor(ctx: CaseContext, expected: InstanceState): string | undefined {
  return ctx.config.stateTable.find((r) => r.expected === expected)?.state;
}

/** Holds `step`, runs `start`, waits until the step is reached, runs `during`, then releases. */
export async function whileHeld<T>(
  ctx: CaseContext,
  step: string,
  start: () => Promise<T>,
  during: (pending: { readonly settled: boolean; promise: Promise<Settled<T>> }) => Promise<void>,
): Promise<Settled<T>> {
  const gate: StepGate = ctx.backend.block(step);
  let done = false;
  const promise = settle(start()).then((s) => {
    done = true;
    return s;
  });
  const pending = {
    promise,
    get settled() {
      return done;
    },
  };
  try {
    await within(
      Promise.race([gate.reached, promise.then(() => undefined)]),
      GATE_BOUND_MS,
      `the call never reached step ${step}`,
    );
    if (done && gate.held === 0) {
      const s = await promise;
      check(
        false,
        `the call returned before reaching step ${step} (${s.ok ? 'it resolved' : `it rejected: ${describeError(s.error)}`})`,
      );
    }
    await during(pending);
  } finally {
    gate.release();
  }
  return within(promise, CALL_BOUND_MS, `the call did not return after step ${step} was released`);
}

export function isHealthy(ctx: CaseContext, inst: Instance): boolean {
  if (ctx.profile.createReturn === 'blocking' && ctx.profile.ipSource === 'assigned-at-create') {
    return inst.state === InstanceState.Running;
  }
  return inst.state === InstanceState.Running || inst.state === InstanceState.Provisioning;
}

export const near = (a: Date | undefined, b: Date, toleranceMs = 1_000): boolean =>
  a instanceof Date && Math.abs(a.getTime() - b.getTime()) <= toleranceMs;

/** An aborted call's error: Transient ABORTED (or TIMEOUT for AbortSignal.timeout). */
export function expectAborted(err: unknown, what: string): void {
  check(ProviderError.isInstance(err), `${what}: expected a ProviderError, got ${describeError(err)}`);
  check(err.kind === ErrorKind.Transient, `${what}: an abort must be Transient, got ${describeError(err)}`);
  check(
    err.code === ErrorCode.Aborted || err.code === ErrorCode.Timeout,
    `${what}: an abort must have code ${ErrorCode.Aborted} (or ${ErrorCode.Timeout}), got ${err.code}`,
  );
}

/** Fails the case unless every entry of a listByTag answer is an instance GC can read. */
export function wellFormedInstances(ctx: CaseContext, list: readonly unknown[], what: string): void {
  check(Array.isArray(list), `${what} did not return an array`);
  for (const x of list) {
    const i = x as Partial<Instance>;
    check(
      typeof x === 'object' && x !== null && typeof i.id === 'string' && i.id !== '',
      `${what} returned an entry without an ID: ${JSON.stringify(x)}`,
    );
    check(typeof i.uid === 'string', `${what}: ${i.id} has no uid string`);
    check(
      i.createdAt === undefined || (i.createdAt instanceof Date && !Number.isNaN(i.createdAt.getTime())),
      `${what}: ${i.id} has createdAt ${String(i.createdAt)}, neither a time nor absent`,
    );
    check(
      i.installation === undefined || typeof i.installation === 'string',
      `${what}: ${i.id} has an installation that is not a string`,
    );
    check(
      (ctx.profile.states as readonly string[]).includes(String(i.state)),
      `${what}: ${i.id} is in state ${String(i.state)}, which profile.states does not declare`,
    );
    // Instance.egress is absent when the egress is shared, and names at least one family when present.
    const egress = i.egress as Record<string, unknown> | undefined;
    check(
      egress === undefined ||
        ((ctx.profile.egress ?? 'shared') !== 'shared' && Object.keys(egress).length > 0),
      `${what}: ${i.id} reports egress ${JSON.stringify(egress)}; want none when profile.egress is ${ctx.profile.egress ?? 'absent (shared)'}, else an address per family`,
    );
  }
}

/** Fails the case unless every entry of a listSecondary answer names its part and instance. */
export function wellFormedSecondaries(list: readonly unknown[], what: string): void {
  check(Array.isArray(list), `${what} did not return an array`);
  for (const x of list) {
    const r = x as { id?: unknown; kind?: unknown; instanceName?: unknown };
    check(
      typeof x === 'object' &&
        x !== null &&
        typeof r.id === 'string' &&
        r.id !== '' &&
        typeof r.kind === 'string' &&
        r.kind !== '' &&
        typeof r.instanceName === 'string' &&
        r.instanceName !== '',
      `${what} returned an entry without an ID, a kind or an instance name: ${JSON.stringify(x)}`,
    );
  }
}

/** Every secret of the case by label: the cloud-init sentinel and the harness's credentials. */
export function caseSecrets(ctx: CaseContext): Map<string, string> {
  const secrets = new Map<string, string>([['the cloud-init sentinel', ctx.cloudInitSentinel]]);
  for (const [i, s] of ctx.config.secrets.entries()) secrets.set(`credential #${i + 1}`, s);
  return secrets;
}
