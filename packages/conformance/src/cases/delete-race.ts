import { ProviderError } from '@egress-proxies/contract';
import type { ConformanceCase } from '../case.js';
import type { CaseContext } from '../context.js';
import { check, describeError } from '../failure.js';
import { track, within } from '../wait.js';
import { oneInstance } from './get.js';
import {
  CALL_BOUND_MS,
  GATE_BOUND_MS,
  isHealthy,
  observe,
  ok,
  onlyView,
  outcome,
  resourceCounts,
  stepsOf,
  viewsNamed,
  whileHeld,
} from './helpers.js';

/** Waits (for a returns-early delete) until neither the instance nor any part of it is left. */
async function nothingLeft(ctx: CaseContext, name: string, what: string): Promise<void> {
  const deadline = Date.now() + CALL_BOUND_MS;
  for (;;) {
    const views = (await viewsNamed(ctx, name)).length;
    const parts = await resourceCounts(ctx, name);
    if (views === 0 && parts === 'none') return;
    check(
      ctx.profile.deleteReturn === 'returns-early' && Date.now() < deadline,
      `${what}: ${views} instance(s) and parts ${parts} are left`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const deleteRaceCases: ConformanceCase[] = [
  {
    id: 'DELETE-09',
    group: 'delete',
    title: 'with the machine already gone, delete still removes its secondary parts',
    proves:
      'a machine removed by hand (or a delete cut off after its last step) leaves no disks or seed images behind',
    gate: 'secondaryResources = explicit or explicit-listable',
    applies: (f) =>
      f.profile.secondaryResources === 'explicit' || f.profile.secondaryResources === 'explicit-listable'
        ? true
        : `profile.secondaryResources is "${f.profile.secondaryResources}": the parts go with the machine`,
    async run(ctx) {
      const { id, req } = await oneInstance(ctx);
      const had = await resourceCounts(ctx, req.name);
      if (had === 'none') ctx.skip('a create left no secondary resource the harness reports');
      await ctx.backend.removeInstance(req.name, req.placement.zone);
      await ok(ctx.provider.delete(id, ctx.opts()), 'delete with the machine gone');
      const left = await resourceCounts(ctx, req.name);
      check(left === 'none', `delete with the machine gone left ${left} (the instance had ${had})`);
    },
  },
  {
    id: 'DELETE-10',
    group: 'delete',
    title:
      "a create racing a delete of the same name is serialised: the create's ID exists, runs and has all its parts after both",
    proves:
      'a finalizer and a reconcile of the same name never leave half an instance or a returned ID that is gone',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      const { id, req } = await oneInstance(ctx);
      const parts = await resourceCounts(ctx, req.name);
      const delSteps = stepsOf(
        await observe(ctx, async () => {
          const probe = await oneInstance(ctx);
          await ctx.backend.clearCalls();
          await ok(ctx.provider.delete(probe.id, ctx.opts()), 'delete');
        }),
      );
      const step = ctx.backend.steps.remove ?? delSteps[delSteps.length - 1]!;
      const gate = ctx.backend.block(step);
      const del = track(ctx.provider.delete(id, ctx.opts()));
      let created: ReturnType<typeof track<string>> | undefined;
      try {
        await within(
          Promise.race([gate.reached, del.promise]),
          GATE_BOUND_MS,
          `delete never reached step ${step}`,
        );
        created = track(ctx.create(req));
        // Give an unserialised create every chance to look at the half-deleted instance first.
        await new Promise((resolve) => setTimeout(resolve, 50));
      } finally {
        gate.release();
      }
      const d = await within(del.promise, CALL_BOUND_MS, 'the delete did not return');
      check(d.ok, `the racing delete failed: ${d.ok ? '' : describeError(d.error)}`);
      const c = await within(created!.promise, CALL_BOUND_MS, 'the racing create did not return');
      check(c.ok, `the racing create failed: ${c.ok ? '' : describeError(c.error)}`);
      const inst = await ok(ctx.provider.get(c.value, ctx.opts()), "get of the racing create's ID");
      check(isHealthy(ctx, inst), `after the race the created instance is ${inst.state}`);
      await onlyView(ctx, req.name, 'after the race');
      const now = await resourceCounts(ctx, req.name);
      check(now === parts, `after the race the created instance has ${now}; a clean create leaves ${parts}`);
    },
  },
  {
    id: 'DELETE-11',
    group: 'delete',
    title:
      'a delete failing at each step in turn is retryable, what it left stays findable, and the next delete leaves nothing',
    proves:
      'a delete cut off halfway never strands a disk or a machine: the next attempt (or garbage collection) finds and removes the rest',
    gate: 'always',
    applies: () => true,
    timeoutMs: 60_000,
    async run(ctx) {
      const probe = await oneInstance(ctx);
      const steps = stepsOf(
        await observe(ctx, () => ok(ctx.provider.delete(probe.id, ctx.opts()), 'delete')),
      );
      for (const step of steps) {
        await ctx.backend.reset();
        const { id, req } = await oneInstance(ctx);
        await ctx.backend.failNext(step, 1, 'internal');
        const first = await outcome(ctx.provider.delete(id, ctx.opts()), `delete failing at ${step}`);
        await ctx.backend.reset();
        if (!first.ok) {
          const e = first.error;
          check(
            ProviderError.isInstance(e) && e.retryable,
            `a backend failure at delete step ${step} must be retryable (Transient), got ${describeError(e)}`,
          );
          const machine = (await viewsNamed(ctx, req.name)).length;
          const parts = (await ctx.backend.resources()).filter((r) => r.instance === req.name);
          if (machine === 0 && parts.length > 0 && ctx.profile.secondaryResources === 'explicit-listable') {
            const listed = (await ok(ctx.provider.listSecondary!(ctx.opts()), 'listSecondary')).filter(
              (r) => r.instanceName === req.name,
            );
            check(
              listed.length === parts.length,
              `a delete failing at ${step} left ${parts.length} parts without their machine, and listSecondary lists ${listed.length}`,
            );
          }
        }
        await ok(ctx.provider.delete(id, ctx.opts()), `the delete after a failure at ${step}`);
        await nothingLeft(ctx, req.name, `a delete failing at ${step}, then another`);
      }
    },
  },
  {
    id: 'DELETE-12',
    group: 'delete',
    title:
      'an instance removed (or stopped) by someone else while delete is at any of its steps is success, and nothing is left',
    proves:
      'a finalizer racing garbage collection or a human never fails on a part the other one removed first, and never stops halfway',
    gate: 'always (stopped: backend.steps.stop)',
    applies: () => true,
    timeoutMs: 60_000,
    async run(ctx) {
      const probe = await oneInstance(ctx);
      const steps = stepsOf(
        await observe(ctx, () => ok(ctx.provider.delete(probe.id, ctx.opts()), 'delete')),
      );
      const meanwhile: [string, (name: string, zone: string | undefined) => Promise<void>][] = [
        [
          'removed',
          async (name, zone) => {
            await ctx.backend.removeInstance(name, zone);
            await ctx.backend.removeResources(name, zone);
          },
        ],
      ];
      if (ctx.backend.steps.stop) {
        meanwhile.push(['stopped', async (name, zone) => ctx.backend.stopInstance(name, zone)]);
      }
      for (const step of steps) {
        for (const [how, act] of meanwhile) {
          await ctx.backend.reset();
          const { id, req } = await oneInstance(ctx);
          const what = `a delete held at ${step} while the instance was ${how} out of band`;
          const s = await whileHeld(
            ctx,
            step,
            () => ctx.provider.delete(id, ctx.opts()),
            async () => act(req.name, req.placement.zone),
          );
          check(s.ok, `${what} failed: ${s.ok ? '' : describeError(s.error)}`);
          await nothingLeft(ctx, req.name, what);
        }
      }
    },
  },
];
