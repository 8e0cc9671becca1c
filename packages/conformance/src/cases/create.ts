import { randomUUID } from 'node:crypto';
import { ErrorCode, ErrorKind, InstanceState, isNotFound, ProviderError } from '@egress-proxies/contract';
import type { ConformanceCase } from '../case.js';
import type { CaseContext } from '../context.js';
import { check, describeError } from '../failure.js';
import { drain, within } from '../wait.js';
import {
  ABORT_BOUND_MS,
  expectKind,
  isHealthy,
  observe,
  ok,
  onlyView,
  outcome,
  resourceCounts,
  snapshot,
  stateFor,
  stepsOf,
  viewsNamed,
  whileHeld,
} from './helpers.js';

/** One clean create: its ID, the steps it went through and the resources it left. */
async function baseline(ctx: CaseContext) {
  const req = ctx.request();
  let id = '';
  const calls = await observe(ctx, async () => {
    id = await ok(ctx.create(req), 'a clean create');
  });
  const steps = stepsOf(calls);
  check(steps.length > 0, 'a clean create made no backend call the harness recorded');
  return { req, id, steps, resources: await resourceCounts(ctx, req.name) };
}

/**
 * After `cause` and a retry that returned `id`: the instance is healthy with the resources a clean
 * create leaves, and deleting it leaves nothing.
 */
async function retriedCleanly(
  ctx: CaseContext,
  id: string,
  name: string,
  step: string,
  cause: string,
  cleanResources: Awaited<ReturnType<typeof resourceCounts>>,
): Promise<void> {
  const inst = await ok(ctx.provider.get(id, ctx.opts()), `get after the retry (step ${step})`);
  check(isHealthy(ctx, inst), `after ${cause} and a retry, get says ${inst.state}`);
  const res = await resourceCounts(ctx, name);
  check(
    res === cleanResources,
    `after ${cause} and a retry the instance has resources ${res}; a clean create leaves ${cleanResources}`,
  );
  await ok(ctx.provider.delete(id, ctx.opts()), `delete after step ${step}`);
  const left = await resourceCounts(ctx, name);
  check(left === 'none', `after ${cause}, a retry and a delete, ${left} is left`);
}

/** A stopped-looking state from the table, so adopting (starting) the instance would show. */
function quietState(ctx: CaseContext): string | undefined {
  return stateFor(ctx, InstanceState.Stopped) ?? stateFor(ctx, InstanceState.Terminated);
}

async function refusesUntouched(
  ctx: CaseContext,
  mark: 'none' | { uid: string },
  what: string,
  code: string,
) {
  const req = ctx.request();
  const state = quietState(ctx);
  await ctx.seed({ name: req.name, mark, ...(state ? { state } : {}) });
  const before = await snapshot(ctx, req.name);
  const err = await ctx.rejects(ctx.create(req), `create over ${what}`);
  expectKind(err, ErrorKind.Permanent, `create over ${what}`);
  check(err.code === code, `create over ${what}: expected code ${code}, got ${err.code}`);
  const after = await snapshot(ctx, req.name);
  check(before === after, `create over ${what} changed it: before ${before}, after ${after}`);
}

export const createCases: ConformanceCase[] = [
  {
    id: 'CREATE-01',
    group: 'create',
    title: 'the same request ten times returns the same ID and leaves one instance',
    proves: 'create is idempotent, keyed by the request name',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      const req = ctx.request();
      const first = await ok(ctx.create(req), 'the first create');
      for (let i = 2; i <= 10; i++) {
        const id = await ok(ctx.create(req), `create number ${i}`);
        check(id === first, `create number ${i} returned ${id}; the first returned ${first}`);
      }
      await onlyView(ctx, req.name, 'after ten creates');
    },
  },
  {
    id: 'CREATE-02',
    group: 'create',
    title:
      'a failure at each create step in turn, then a clean retry, ends with one healthy instance and nothing leaked',
    proves: 'create resumes after a partial failure without duplicating or leaking secondary resources',
    gate: 'always',
    applies: () => true,
    timeoutMs: 30_000,
    async run(ctx) {
      const base = await baseline(ctx);
      for (const step of base.steps) {
        await ctx.backend.reset();
        const req = ctx.request();
        await ctx.backend.failNext(step, 1, 'internal');
        const first = await outcome(ctx.create(req), `create with step ${step} failing`);
        if (first.ok) {
          ctx.track(first.value);
          ctx.note(`a failure at step ${step} was absorbed by the provider`);
        } else {
          const e = first.error;
          check(
            ProviderError.isInstance(e) && e.retryable,
            `a backend failure at step ${step} must be retryable (Transient), got ${describeError(e)}`,
          );
        }
        await ctx.backend.reset();
        const id = await ok(ctx.create(req), `the retry after step ${step} failed`);
        const view = await onlyView(ctx, req.name, `after a failure at step ${step} and a retry`);
        check(view.id === id, `the retry returned ${id} but the backend instance is ${view.id}`);
        await retriedCleanly(ctx, id, req.name, step, `a failure at step ${step}`, base.resources);
        check((await viewsNamed(ctx, req.name)).length === 0, `delete left the instance of step ${step}`);
      }
    },
  },
  {
    id: 'CREATE-03',
    group: 'create',
    title: 'a blocking create returns only when the instance runs',
    proves: 'the profile\'s create-return "blocking" is true: the caller never sees a half-started instance',
    gate: 'createReturn = blocking',
    applies: (f) =>
      f.profile.createReturn === 'blocking' ||
      'profile.createReturn is "submit": create returns before the instance runs',
    async run(ctx) {
      const base = await baseline(ctx);
      const last = base.steps[base.steps.length - 1]!;
      const req = ctx.request();
      const s = await whileHeld(
        ctx,
        last,
        () => ctx.create(req),
        async (pending) => {
          await drain();
          check(!pending.settled, `create returned while its last step (${last}) was still held`);
        },
      );
      check(s.ok, `create failed: ${s.ok ? '' : describeError(s.error)}`);
      const view = await onlyView(ctx, req.name, 'after a blocking create');
      check(view.running, `create returned while the backend says the instance is ${view.state}`);
    },
  },
  {
    id: 'CREATE-04',
    group: 'create',
    title:
      'an unknown zone, machine type or image is Permanent INVALID_PLACEMENT naming it and the allowed ones, before any backend call',
    proves: 'placement is validated against the catalogues up front, so a typo never half-creates anything',
    gate: 'config.validatedPlacement not empty',
    applies: (f) =>
      f.config.validatedPlacement.length > 0 || 'the harness says create validates no placement field',
    async run(ctx) {
      for (const field of ctx.config.validatedPlacement) {
        // `constructor` is a key every plain object has: a catalogue looked up by `table[key]` finds it.
        for (const value of [`no-such-${field}-x9`, 'constructor']) {
          const req = ctx.request({ placement: { ...ctx.config.placement, [field]: value } });
          const what = `create with an unknown ${field} ${JSON.stringify(value)}`;
          await ctx.backend.clearCalls();
          const err = await ctx.rejects(ctx.create(req), what);
          expectKind(err, ErrorKind.Permanent, what);
          check(
            err.code === ErrorCode.InvalidPlacement,
            `${what}: expected code ${ErrorCode.InvalidPlacement}, got ${err.code}`,
          );
          check(err.message.includes(value), `${what}: the error does not name the value: ${err.message}`);
          // The accepted value is one of the allowed ones, so a message listing them names it too.
          const allowed = ctx.config.placement[field];
          check(
            allowed === undefined || err.message.includes(allowed),
            `${what}: the error does not list the allowed values (${JSON.stringify(allowed)} is one): ${err.message}`,
          );
          const calls = await ctx.backend.calls();
          check(
            calls.length === 0,
            `${what} made backend calls first: ${calls.map((c) => c.step).join(', ')}`,
          );
        }
      }
    },
  },
  {
    id: 'CREATE-05',
    group: 'create',
    title: 'an existing instance with a foreign UID is Permanent FOREIGN_INSTANCE and left untouched',
    proves: 'create never adopts an instance that belongs to another Proxy',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      await refusesUntouched(
        ctx,
        { uid: randomUUID() },
        'an instance with a foreign UID',
        ErrorCode.ForeignInstance,
      );
    },
  },
  {
    id: 'CREATE-06',
    group: 'create',
    title: 'an unmarked instance with the same name is Permanent UNMARKED_INSTANCE and left untouched',
    proves: 'create never adopts an instance it did not mark (a hand-made machine with our name)',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      await refusesUntouched(ctx, 'none', 'an unmarked instance', ErrorCode.UnmarkedInstance);
    },
  },
  {
    id: 'CREATE-07',
    group: 'create',
    title: 'out of capacity is QuotaExceeded',
    proves: 'the reconciler can back off slowly instead of hammering a full backend',
    gate: 'quota = detected',
    applies: (f) => {
      if (f.profile.quota !== 'detected') return 'profile.quota is "absent": capacity is not detected';
      return f.backend.exhaustCapacity ? true : 'the backend control has no exhaustCapacity';
    },
    async run(ctx) {
      const req = ctx.request();
      await ctx.backend.exhaustCapacity!(req.placement.zone);
      const err = await ctx.rejects(ctx.create(req), 'create with no capacity left');
      expectKind(err, ErrorKind.QuotaExceeded, 'create with no capacity left');
      await ctx.backend.reset();
      await ok(ctx.create(req), 'create once capacity is back');
    },
  },
  {
    id: 'CREATE-08',
    group: 'create',
    title: 'a backend NotFound during create is Transient, not NotFound',
    proves: 'a vanished volume or image mid-create never reads as "the instance is gone"',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      const base = await baseline(ctx);
      let surfaced = 0;
      for (const step of base.steps) {
        await ctx.backend.reset();
        const req = ctx.request();
        await ctx.backend.failNext(step, 1, 'not-found');
        const s = await outcome(ctx.create(req), `create with a NotFound at step ${step}`);
        if (s.ok) {
          ctx.track(s.value);
          continue;
        }
        surfaced += 1;
        check(!isNotFound(s.error), `a backend NotFound at step ${step} surfaced as NotFound`);
        expectKind(s.error, ErrorKind.Transient, `a backend NotFound at step ${step}`);
      }
      if (surfaced === 0) ctx.skip('no create step let a backend NotFound reach the caller (all absorbed)');
    },
  },
  {
    id: 'CREATE-09',
    group: 'create',
    title: 'a marked instance with an empty UID is adopted',
    proves: 'an instance marked by an older version (no UID) is taken over, not duplicated or refused',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      const req = ctx.request();
      const seeded = await ctx.seed({ name: req.name, mark: { uid: '' } });
      const id = await ok(ctx.create(req), 'create over a marked instance with an empty UID');
      check(id === seeded, `create returned ${id}; the existing instance is ${seeded}`);
      await onlyView(ctx, req.name, 'after adopting');
    },
  },
  {
    id: 'CREATE-10',
    group: 'create',
    title: 'ten concurrent creates of one request make one instance',
    proves: 'creates of one name are serialised (or converge), so a double reconcile cannot duplicate',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      const base = await baseline(ctx);
      const req = ctx.request();
      const all = await Promise.all(
        Array.from({ length: 10 }, () => outcome(ctx.create(req), 'a concurrent create')),
      );
      const ids = new Set<string>();
      for (const s of all) {
        check(s.ok, `a concurrent create failed: ${s.ok ? '' : describeError(s.error)}`);
        ids.add(s.value);
      }
      check(
        ids.size === 1,
        `ten concurrent creates returned ${ids.size} different IDs: ${[...ids].join(', ')}`,
      );
      await onlyView(ctx, req.name, 'after ten concurrent creates');
      const res = await resourceCounts(ctx, req.name);
      check(
        res === base.resources,
        `ten concurrent creates left ${res}; one create leaves ${base.resources}`,
      );
    },
  },
  {
    id: 'CREATE-11',
    group: 'create',
    title: 'create over an instance stopped out of band starts it again',
    proves:
      'a blocking create\'s promise ("returns when running") also holds when it adopts its own instance',
    gate: 'createReturn = blocking',
    applies: (f) =>
      f.profile.createReturn === 'blocking' ||
      'profile.createReturn is "submit": create does not promise a running instance',
    async run(ctx) {
      const req = ctx.request();
      const id = await ok(ctx.create(req), 'the first create');
      await ctx.backend.stopInstance(req.name, req.placement.zone);
      const again = await ok(ctx.create(req), 'create after an out-of-band stop');
      check(again === id, `create after an out-of-band stop returned ${again}, first ${id}`);
      const view = await onlyView(ctx, req.name, 'after the second create');
      check(view.running, `create returned but the instance is ${view.state}`);
    },
  },
  {
    id: 'CREATE-12',
    group: 'create',
    title: 'create after the instance was deleted out of band makes it again under the same ID',
    proves: 'leftovers of a vanished instance are reused or replaced, not duplicated',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      const base = await baseline(ctx);
      await ctx.backend.removeInstance(base.req.name, base.req.placement.zone);
      const err = await ctx.rejects(ctx.provider.get(base.id, ctx.opts()), 'get after an out-of-band delete');
      expectKind(err, ErrorKind.NotFound, 'get after an out-of-band delete');
      const id = await ok(ctx.create(base.req), 'create after an out-of-band delete');
      check(id === base.id, `create after an out-of-band delete returned ${id}, first ${base.id}`);
      await onlyView(ctx, base.req.name, 'after re-creating');
      const res = await resourceCounts(ctx, base.req.name);
      check(res === base.resources, `re-creating left ${res}; one create leaves ${base.resources}`);
    },
  },
  {
    id: 'CREATE-13',
    group: 'create',
    title:
      'a create aborted at each step in turn, then retried, ends with one healthy instance and nothing leaked',
    proves:
      'an aborted create is resumable: a shutdown in the middle of a create never strands half an instance',
    gate: 'always',
    applies: () => true,
    timeoutMs: 30_000,
    async run(ctx) {
      const base = await baseline(ctx);
      for (const step of base.steps) {
        await ctx.backend.reset();
        const req = ctx.request();
        const ac = new AbortController();
        await whileHeld(
          ctx,
          step,
          () => ctx.create(req, ctx.opts(ac.signal)),
          async (pending) => {
            ac.abort();
            await within(
              pending.promise,
              ABORT_BOUND_MS,
              `create did not return within 1 s of an abort at step ${step}`,
            );
          },
        );
        await ctx.backend.reset();
        const id = await ok(ctx.create(req), `the retry after an abort at step ${step}`);
        await onlyView(ctx, req.name, `after an abort at step ${step} and a retry`);
        await retriedCleanly(ctx, id, req.name, step, `an abort at step ${step}`, base.resources);
      }
    },
  },
];
