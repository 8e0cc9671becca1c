import { randomUUID } from 'node:crypto';
import { ErrorCode, ErrorKind } from '@egress-proxies/contract';
import type { ConformanceCase } from '../case.js';
import type { CaseContext } from '../context.js';
import { check } from '../failure.js';
import { expectKind, observe, ok, onlyView, snapshot, stepsOf } from './helpers.js';

/** Every distinct backend state of the state table, in table order. */
function tableStates(ctx: CaseContext): string[] {
  return [...new Set(ctx.config.stateTable.map((r) => r.state))];
}

/** Seeds `mark` in `state`, asks create to take it, and checks the refusal and that nothing changed. */
async function refusedIn(
  ctx: CaseContext,
  state: string,
  mark: 'none' | { uid: string },
  code: string,
  what: string,
): Promise<void> {
  const req = ctx.request();
  await ctx.seed({ name: req.name, mark, state, address: false });
  const before = await snapshot(ctx, req.name);
  const err = await ctx.rejects(ctx.create(req), `create over ${what} in state ${state}`);
  expectKind(err, ErrorKind.Permanent, `create over ${what} in state ${state}`);
  check(err.code === code, `create over ${what} in state ${state}: expected code ${code}, got ${err.code}`);
  check(
    err.message.includes(req.name),
    `the refusal of ${what} does not name the instance ${req.name}: ${err.message}`,
  );
  const after = await snapshot(ctx, req.name);
  check(
    before === after,
    `create over ${what} in state ${state} changed it: before ${before}, after ${after}`,
  );
}

const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 15));

/** `get(id).createdAt` as epoch ms, failing the case when it is absent. */
async function createdAtOf(ctx: CaseContext, id: string, what: string): Promise<number> {
  const inst = await ok(ctx.provider.get(id, ctx.opts()), what);
  check(inst.createdAt instanceof Date, `${what}: get returned no createdAt`);
  return inst.createdAt.getTime();
}

export const adoptionCases: ConformanceCase[] = [
  {
    id: 'CREATE-14',
    group: 'create',
    title: 'the adoption guard holds in every backend state: foreign UID and unmarked are refused, untouched',
    proves:
      'a stopped, paused or still-provisioning machine of another owner (or of a human) is never taken over',
    gate: 'config.stateTable',
    applies: (f) => f.config.stateTable.length > 0 || 'the state table is empty',
    timeoutMs: 30_000,
    async run(ctx) {
      for (const state of tableStates(ctx)) {
        await refusedIn(ctx, state, { uid: randomUUID() }, ErrorCode.ForeignInstance, 'a foreign UID');
        await refusedIn(ctx, state, 'none', ErrorCode.UnmarkedInstance, 'an unmarked instance');
      }
    },
  },
  {
    id: 'CREATE-15',
    group: 'create',
    title: 'a mark that is present but unreadable is Permanent and the instance is left untouched',
    proves: 'a garbled mark is never read as "ours" (or as "absent" and recreated over)',
    gate: 'backend.corrupt',
    applies: (f) =>
      f.backend.corrupt ? true : 'backend.corrupt is absent: the harness cannot garble a mark',
    async run(ctx) {
      const req = ctx.request();
      // The mark names the request's own UID before it is garbled: only the garbling makes it unreadable.
      await ctx.seed({ name: req.name, mark: { uid: req.uid } });
      await ctx.backend.corrupt!(req.name, req.placement.zone);
      const before = await snapshot(ctx, req.name);
      const err = await ctx.rejects(ctx.create(req), 'create over an unreadable mark');
      expectKind(err, ErrorKind.Permanent, 'create over an unreadable mark');
      check(
        err.message.includes(req.name),
        `the refusal of an unreadable mark does not name the instance ${req.name}: ${err.message}`,
      );
      const after = await snapshot(ctx, req.name);
      check(before === after, `create over an unreadable mark changed it: before ${before}, after ${after}`);
    },
  },
  {
    id: 'CREATE-16',
    group: 'create',
    title: 'createdAt is written once: a repeated create, an adopt and a retry after a failed step keep it',
    proves: 'garbage collection ages an instance from its real birth, not from the last reconcile',
    gate: 'always',
    applies: () => true,
    timeoutMs: 30_000,
    async run(ctx) {
      const req = ctx.request();
      const id = await ok(ctx.create(req), 'create');
      const born = await createdAtOf(ctx, id, 'get after create');
      await pause();
      await ok(ctx.create(req), 'the repeated create');
      check(
        (await createdAtOf(ctx, id, 'get after a repeated create')) === born,
        'a repeated create rewrote createdAt',
      );
      await ctx.backend.stopInstance(req.name, req.placement.zone);
      await pause();
      await ok(ctx.create(req), 'create over the stopped instance');
      check(
        (await createdAtOf(ctx, id, 'get after an adopt')) === born,
        'adopting the instance rewrote createdAt',
      );
      // A retry after a failure at every step a repeated create makes.
      const steps = stepsOf(await observe(ctx, () => ok(ctx.create(req), 'create')));
      for (const step of steps) {
        await pause();
        await ctx.backend.failNext(step, 1, 'internal');
        await ctx.create(req).catch(() => undefined);
        await ctx.backend.reset();
        await ok(ctx.create(req), `the retry after a failure at ${step}`);
        check(
          (await createdAtOf(ctx, id, `get after a retry (step ${step})`)) === born,
          `a retry after a failure at ${step} rewrote createdAt`,
        );
      }
      await onlyView(ctx, req.name, 'after the retries');
    },
  },
];
