import type { CaseContext } from '../context.js';
import { oneInstance } from './get.js';
import { observe, ok, stepsOf } from './helpers.js';

export type Run = (signal: AbortSignal) => Promise<unknown>;

/** One contract operation: the steps a clean call makes, and a way to make a fresh call of it. */
export interface OperationCall {
  op: string;
  steps: string[];
  fresh: () => Promise<Run>;
}

/**
 * A resource left without its machine (the machine removed out of band), as `listSecondary`
 * lists it; undefined when the provider leaves nothing behind that it lists.
 */
export async function orphanedResource(ctx: CaseContext): Promise<string | undefined> {
  const { req } = await oneInstance(ctx);
  await ctx.backend.removeInstance(req.name, req.placement.zone);
  const listed = await ok(ctx.provider.listSecondary!(ctx.opts()), 'listSecondary');
  return listed.find((r) => r.instanceName === req.name)?.id;
}

/**
 * Every operation the provider has (create, get, listByTag, delete, and listSecondary and
 * deleteSecondary where present), each with the steps one clean call makes.
 */
export async function operationCalls(ctx: CaseContext): Promise<OperationCall[]> {
  const { provider } = ctx;
  const live = await oneInstance(ctx);
  const probe = await oneInstance(ctx);
  const createSteps = stepsOf(await observe(ctx, () => ok(ctx.create(ctx.request()), 'create')));
  const getSteps = stepsOf(await observe(ctx, () => ok(provider.get(live.id, ctx.opts()), 'get')));
  const listSteps = stepsOf(await observe(ctx, () => ok(provider.listByTag(ctx.opts()), 'listByTag')));
  const deleteSteps = stepsOf(await observe(ctx, () => ok(provider.delete(probe.id, ctx.opts()), 'delete')));
  const calls: OperationCall[] = [
    {
      op: 'create',
      steps: createSteps,
      fresh: async () => {
        const req = ctx.request();
        return (signal) => ctx.create(req, ctx.opts(signal));
      },
    },
    { op: 'get', steps: getSteps, fresh: async () => (signal) => provider.get(live.id, ctx.opts(signal)) },
    {
      op: 'listByTag',
      steps: listSteps,
      fresh: async () => (signal) => provider.listByTag(ctx.opts(signal)),
    },
    {
      op: 'delete',
      steps: deleteSteps,
      fresh: async () => {
        const { id } = await oneInstance(ctx);
        return (signal) => provider.delete(id, ctx.opts(signal));
      },
    },
  ];
  if (provider.listSecondary && provider.deleteSecondary) {
    const listSecondary = provider.listSecondary.bind(provider);
    const deleteSecondary = provider.deleteSecondary.bind(provider);
    calls.push({
      op: 'listSecondary',
      steps: stepsOf(await observe(ctx, () => ok(listSecondary(ctx.opts()), 'listSecondary'))),
      fresh: async () => (signal) => listSecondary(ctx.opts(signal)),
    });
    const orphan = await orphanedResource(ctx);
    if (orphan !== undefined) {
      calls.push({
        op: 'deleteSecondary',
        steps: stepsOf(await observe(ctx, () => ok(deleteSecondary(orphan, ctx.opts()), 'deleteSecondary'))),
        fresh: async () => {
          const id = (await orphanedResource(ctx)) ?? orphan;
          return (signal) => deleteSecondary(id, ctx.opts(signal));
        },
      });
    }
  }
  return calls;
}
