import { ErrorCode, ErrorKind } from '@egress-proxies/contract';
import type { ConformanceCase } from '../case.js';
import { check, describeError } from '../failure.js';
import { malformedIds, namesBadId, oneInstance } from './get.js';
import { expectKind, observe, ok, outcome, resourceCounts, snapshot, viewsNamed } from './helpers.js';

export const deleteCases: ConformanceCase[] = [
  {
    id: 'DELETE-01',
    group: 'delete',
    title: 'a malformed ID is Permanent INVALID_ID, before any backend call',
    proves: 'a corrupted status field never deletes something by accident',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      for (const bad of malformedIds(ctx)) {
        await ctx.backend.clearCalls();
        const err = await ctx.rejects(ctx.provider.delete(bad, ctx.opts()), `delete(${JSON.stringify(bad)})`);
        expectKind(err, ErrorKind.Permanent, `delete(${JSON.stringify(bad)})`);
        check(
          err.code === ErrorCode.InvalidId,
          `delete(${JSON.stringify(bad)}): expected code ${ErrorCode.InvalidId}, got ${err.code}`,
        );
        namesBadId(err, bad, 'delete');
        const calls = await ctx.backend.calls();
        check(
          calls.length === 0,
          `delete(${JSON.stringify(bad)}) made backend calls: ${calls.map((c) => c.step).join(', ')}`,
        );
      }
    },
  },
  {
    id: 'DELETE-02',
    group: 'delete',
    title: 'deleting twice succeeds',
    proves: 'delete of something absent is success, so a retried finalizer completes',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      const { id, req } = await oneInstance(ctx);
      await ok(ctx.provider.delete(id, ctx.opts()), 'the first delete');
      await ok(ctx.provider.delete(id, ctx.opts()), 'the second delete');
      check((await viewsNamed(ctx, req.name)).length === 0, 'the instance still exists after delete');
    },
  },
  {
    id: 'DELETE-03',
    group: 'delete',
    title: "delete removes every secondary resource of its instance and nothing of another instance's",
    proves: 'no volume, seed ISO or disk outlives its instance, and deleting one Proxy never touches another',
    gate: 'secondaryResources != none',
    applies: (f) =>
      f.profile.secondaryResources !== 'none' || 'profile.secondaryResources is "none": nothing to remove',
    async run(ctx) {
      const { id, req } = await oneInstance(ctx);
      const neighbour = await oneInstance(ctx);
      const had = await resourceCounts(ctx, req.name);
      if (had === 'none') ctx.skip('a create left no secondary resource the harness reports');
      const spared = await snapshot(ctx, neighbour.req.name);
      await ok(ctx.provider.delete(id, ctx.opts()), 'delete');
      const left = await resourceCounts(ctx, req.name);
      check(left === 'none', `delete left ${left} (the instance had ${had})`);
      check((await viewsNamed(ctx, req.name)).length === 0, 'the instance still exists after delete');
      const after = await snapshot(ctx, neighbour.req.name);
      check(after === spared, `deleting ${req.name} changed its neighbour: before ${spared}, after ${after}`);
    },
  },
  {
    id: 'DELETE-04',
    group: 'delete',
    title: 'a running instance is stopped before it is removed',
    proves: 'the backend never removes a live machine from under its disks',
    gate: 'backend.steps.stop and backend.steps.remove',
    applies: (f) =>
      f.backend.steps.stop && f.backend.steps.remove
        ? true
        : 'the backend control names no stop or remove step (removal stops the instance itself)',
    async run(ctx) {
      const { stop, remove } = ctx.backend.steps;
      const { id } = await oneInstance(ctx);
      const calls = (await observe(ctx, () => ok(ctx.provider.delete(id, ctx.opts()), 'delete'))).map(
        (c) => c.step,
      );
      const s = calls.indexOf(stop!);
      const r = calls.indexOf(remove!);
      check(r >= 0, `delete never made the remove step ${remove}: ${calls.join(', ')}`);
      check(
        s >= 0 && s < r,
        `delete did not stop (${stop}) before removing (${remove}): ${calls.join(', ')}`,
      );
    },
  },
  {
    id: 'DELETE-05',
    group: 'delete',
    title: 'missing secondary resources are tolerated',
    proves: 'a volume removed by hand does not wedge the finalizer',
    gate: 'secondaryResources = explicit or explicit-listable',
    applies: (f) =>
      f.profile.secondaryResources === 'explicit' || f.profile.secondaryResources === 'explicit-listable'
        ? true
        : `profile.secondaryResources is "${f.profile.secondaryResources}": the provider removes none by name`,
    async run(ctx) {
      const { id, req } = await oneInstance(ctx);
      await ctx.backend.removeResources(req.name, req.placement.zone);
      await ok(ctx.provider.delete(id, ctx.opts()), 'delete with the resources already gone');
      check((await viewsNamed(ctx, req.name)).length === 0, 'the instance still exists after delete');
    },
  },
  {
    id: 'DELETE-06',
    group: 'delete',
    title: 'an unconfigured zone or host is a no-op',
    proves: 'a Proxy on a host removed from the config can still be deleted',
    gate: 'config.unconfiguredZoneId',
    applies: (f) =>
      f.config.unconfiguredZoneId ? true : 'the harness gives no unconfiguredZoneId (IDs carry no zone)',
    async run(ctx) {
      const id = ctx.config.unconfiguredZoneId!(ctx.name());
      await ctx.backend.clearCalls();
      await ok(ctx.provider.delete(id, ctx.opts()), `delete(${id})`);
      const calls = await ctx.backend.calls();
      check(
        calls.length === 0,
        `delete on an unconfigured zone made calls: ${calls.map((c) => c.step).join(', ')}`,
      );
    },
  },
  {
    id: 'DELETE-07',
    group: 'delete',
    title: 'concurrent deletes of one instance are safe',
    proves: 'a finalizer and a garbage collector deleting at once both succeed and leave nothing',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      const { id, req } = await oneInstance(ctx);
      const all = await Promise.all(
        Array.from({ length: 5 }, () => outcome(ctx.provider.delete(id, ctx.opts()), 'a concurrent delete')),
      );
      for (const s of all) check(s.ok, `a concurrent delete failed: ${s.ok ? '' : describeError(s.error)}`);
      check((await viewsNamed(ctx, req.name)).length === 0, 'the instance still exists');
      const left = await resourceCounts(ctx, req.name);
      check(left === 'none', `concurrent deletes left ${left}`);
    },
  },
  {
    id: 'DELETE-08',
    group: 'delete',
    title: 'an unmarked instance is left untouched and delete succeeds',
    proves: 'delete never removes a machine it did not mark, even when the ID names it',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      const name = ctx.name();
      const id = await ctx.seed({ name, mark: 'none' });
      const before = await snapshot(ctx, name);
      await ok(ctx.provider.delete(id, ctx.opts()), 'delete of an unmarked instance');
      const after = await snapshot(ctx, name);
      check(before === after, `delete changed an unmarked instance: before ${before}, after ${after}`);
    },
  },
];
