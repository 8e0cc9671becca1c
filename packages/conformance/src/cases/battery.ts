import type { CaseContext } from '../context.js';
import { malformedIds } from './get.js';
import { observe, ok, outcome, stepsOf } from './helpers.js';

export interface Collected {
  what: string;
  /** The contract operation that failed. */
  op: string;
  err: unknown;
}

/**
 * Drives every operation through its error paths (bad input, refusals, a busy and an unreachable
 * backend, a failure at every create step, an abort) and returns every error it got.
 */
export async function errorBattery(ctx: CaseContext): Promise<Collected[]> {
  const errors: Collected[] = [];
  const collect = async (op: string, what: string, p: Promise<unknown>) => {
    const s = await outcome(p, what);
    if (!s.ok) errors.push({ what, op, err: s.error });
  };
  const { provider } = ctx;
  for (const bad of malformedIds(ctx)) {
    await collect('get', `get(${JSON.stringify(bad)})`, provider.get(bad, ctx.opts()));
    await collect('delete', `delete(${JSON.stringify(bad)})`, provider.delete(bad, ctx.opts()));
  }
  for (const field of ctx.config.validatedPlacement) {
    const req = ctx.request({ placement: { ...ctx.config.placement, [field]: `no-such-${field}-x9` } });
    await collect('create', `create with an unknown ${field}`, ctx.create(req));
  }
  const req = ctx.request();
  let id = '';
  const steps = stepsOf(
    await observe(ctx, async () => {
      id = await ok(ctx.create(req), 'create');
    }),
  );
  await ok(provider.delete(id, ctx.opts()), 'delete');
  await collect('get', 'get after delete', provider.get(id, ctx.opts()));
  const unmarked = ctx.name();
  await ctx.seed({ name: unmarked, mark: 'none' });
  await collect('create', 'create over an unmarked instance', ctx.create(ctx.request({ name: unmarked })));
  const live = ctx.request();
  const liveId = await ok(ctx.create(live), 'create');
  for (const mode of ['busy', 'unreachable'] as const) {
    if (mode === 'busy') await ctx.backend.setBusy(true);
    else await ctx.backend.setUnreachable(true);
    await collect('create', `create with the backend ${mode}`, ctx.create(ctx.request()));
    await collect('get', `get with the backend ${mode}`, provider.get(liveId, ctx.opts()));
    await collect('listByTag', `listByTag with the backend ${mode}`, provider.listByTag(ctx.opts()));
    await collect('delete', `delete with the backend ${mode}`, provider.delete(liveId, ctx.opts()));
    await ctx.backend.reset();
  }
  for (const step of steps) {
    await ctx.backend.failNext(step, 1, 'internal');
    await collect('create', `create failing at ${step}`, ctx.create(ctx.request()));
    await ctx.backend.reset();
  }
  const aborted = new AbortController();
  aborted.abort();
  await collect('create', 'an aborted create', ctx.create(ctx.request(), ctx.opts(aborted.signal)));
  await collect('get', 'an aborted get', provider.get(liveId, ctx.opts(aborted.signal)));
  return errors;
}
