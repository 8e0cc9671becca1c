import type { CallOptions } from '@egress-proxies/contract';
import type { CaseContext } from '../context.js';
import { oneInstance } from './get.js';
import { observe, ok, stepsOf } from './helpers.js';

/** One fresh call of an operation; `instance` names what a create or delete is about. */
export type Run = ((signal: AbortSignal) => Promise<unknown>) & {
  readonly instance?: { name: string; zone?: string | undefined };
};

const about = (run: (signal: AbortSignal) => Promise<unknown>, name: string, zone?: string): Run =>
  Object.assign(run, { instance: { name, zone } });

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
export async function operationCalls(
  ctx: CaseContext,
  opts: (signal?: AbortSignal) => CallOptions = (signal) => ctx.opts(signal),
): Promise<OperationCall[]> {
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
        return about((signal) => ctx.create(req, opts(signal)), req.name, req.placement.zone);
      },
    },
    { op: 'get', steps: getSteps, fresh: async () => (signal) => provider.get(live.id, opts(signal)) },
    {
      op: 'listByTag',
      steps: listSteps,
      fresh: async () => (signal) => provider.listByTag(opts(signal)),
    },
    {
      op: 'delete',
      steps: deleteSteps,
      fresh: async () => {
        const { id, req } = await oneInstance(ctx);
        return about((signal) => provider.delete(id, opts(signal)), req.name, req.placement.zone);
      },
    },
  ];
  if (provider.listSecondary && provider.deleteSecondary) {
    const listSecondary = provider.listSecondary.bind(provider);
    const deleteSecondary = provider.deleteSecondary.bind(provider);
    calls.push({
      op: 'listSecondary',
      steps: stepsOf(await observe(ctx, () => ok(listSecondary(ctx.opts()), 'listSecondary'))),
      fresh: async () => (signal) => listSecondary(opts(signal)),
    });
    const orphan = await orphanedResource(ctx);
    if (orphan !== undefined) {
      calls.push({
        op: 'deleteSecondary',
        steps: stepsOf(await observe(ctx, () => ok(deleteSecondary(orphan, ctx.opts()), 'deleteSecondary'))),
        fresh: async () => {
          const id = (await orphanedResource(ctx)) ?? orphan;
          return (signal) => deleteSecondary(id, opts(signal));
        },
      });
    }
  }
  return calls;
}
