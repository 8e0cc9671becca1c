import { randomUUID } from 'node:crypto';
import { ErrorCode, ErrorKind, isNotFound, ProviderError } from '@egress-proxies/contract';
import type { ConformanceCase } from '../case.js';
import type { CaseContext } from '../context.js';
import { ConformanceFailure, check, describeError } from '../failure.js';
import { DEFAULT_MALFORMED_IDS, namesBadId, oneInstance } from './get.js';
import {
  expectKind,
  observe,
  ok,
  outcome,
  resourceCounts,
  snapshot,
  wellFormedInstances,
  wellFormedSecondaries,
} from './helpers.js';

/** The configured zones, or one unnamed zone when IDs carry none. */
const zonesOf = (ctx: CaseContext): (string | undefined)[] =>
  ctx.config.zones && ctx.config.zones.length > 0 ? [...ctx.config.zones] : [undefined];

export const listStrictCases: ConformanceCase[] = [
  {
    id: 'LIST-07',
    group: 'listByTag',
    title:
      'every marked instance in every state, on every target, of every installation, is listed once, with no per-instance state or address call',
    proves:
      'garbage collection sees everything it owns (a stopped or provisioning machine is not invisible) from the listing and the marks alone',
    gate: 'config.stateTable',
    applies: (f) => f.config.stateTable.length > 0 || 'the state table is empty',
    timeoutMs: 30_000,
    async run(ctx) {
      const want = new Map<string, { uid: string; installation: string | undefined; createdAt: Date }>();
      const states = [...new Set(ctx.config.stateTable.map((r) => r.state))];
      const createdAt = new Date('2024-06-07T08:09:10Z');
      for (const zone of zonesOf(ctx)) {
        for (const [i, state] of states.entries()) {
          const uid = randomUUID();
          // Alternate installations, and one without any (made by the Go operator).
          const installation = i % 3 === 2 ? undefined : `inst-${i % 3}`;
          const id = await ctx.seed({
            name: ctx.name(),
            ...(zone ? { zone } : {}),
            state,
            address: false,
            mark: { uid, createdAt, ...(installation ? { installation } : {}) },
          });
          want.set(id, { uid, installation, createdAt });
        }
      }
      let listed: Awaited<ReturnType<CaseContext['provider']['listByTag']>> = [];
      const calls = await observe(ctx, async () => {
        listed = await ok(ctx.provider.listByTag(ctx.opts()), 'listByTag');
      });
      wellFormedInstances(ctx, listed, 'listByTag');
      for (const [id, w] of want) {
        const found = listed.filter((x) => x.id === id);
        check(found.length === 1, `listByTag returned ${found.length} entries for ${id}`);
        const f = found[0]!;
        check(f.uid === w.uid, `listByTag read uid ${f.uid} for ${id}; the mark holds ${w.uid}`);
        check(
          f.installation === w.installation,
          `listByTag read installation ${f.installation} for ${id}; the mark holds ${w.installation}`,
        );
        if (ctx.profile.createdAt === 'written-at-create')
          check(
            f.createdAt?.getTime() === w.createdAt.getTime(),
            `listByTag read createdAt ${f.createdAt?.toISOString()} for ${id}; the mark holds ${w.createdAt.toISOString()}`,
          );
        else check(f.createdAt instanceof Date, `listByTag read no createdAt for ${id}`);
      }
      const { state, address } = ctx.backend.steps;
      for (const step of [state, address]) {
        if (!step) continue;
        const n = calls.filter((c) => c.step === step).length;
        check(
          n === 0,
          `listByTag made ${n} ${step} calls; garbage collection needs only the listing and the marks`,
        );
      }
    },
  },
  {
    id: 'LIST-08',
    group: 'listByTag',
    title: 'with every target unreachable, listByTag rejects as Transient under either list-partial policy',
    proves:
      'an unreadable backend never looks like "nothing exists" (which would let GC think it has nothing to keep)',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      await oneInstance(ctx);
      await ctx.backend.setUnreachable(true);
      const s = await outcome(ctx.provider.listByTag(ctx.opts()), 'listByTag with every target unreachable');
      if (s.ok) {
        throw new ConformanceFailure(
          `listByTag with every target unreachable returned ${s.value.length} instances instead of rejecting`,
        );
      }
      check(
        !isNotFound(s.error),
        `listByTag with every target unreachable rejected as NotFound (${describeError(s.error)})`,
      );
      // Nothing could be read: worth retrying, and the error says so.
      expectKind(s.error, ErrorKind.Transient, 'listByTag with every target unreachable');
    },
  },
  {
    id: 'LIST-09',
    group: 'listByTag',
    title: 'deleteSecondary never removes the parts of an instance that exists again',
    proves:
      'a leftover listed before its instance was re-created is not ripped out from under the new machine',
    gate: 'secondaryResources = explicit-listable',
    applies: (f) => {
      if (f.profile.secondaryResources !== 'explicit-listable')
        return `profile.secondaryResources is "${f.profile.secondaryResources}", not explicit-listable`;
      return f.provider.listSecondary && f.provider.deleteSecondary
        ? true
        : 'the provider has no listSecondary/deleteSecondary';
    },
    async run(ctx) {
      const req = ctx.request();
      await ok(ctx.create(req), 'create');
      await ctx.backend.removeInstance(req.name, req.placement.zone);
      const listed = (await ok(ctx.provider.listSecondary!(ctx.opts()), 'listSecondary')).filter(
        (r) => r.instanceName === req.name,
      );
      if (listed.length === 0) ctx.skip('removing the machine out of band left nothing listSecondary lists');
      const id = await ok(ctx.create(req), 'create again (the instance exists again)');
      const before = await resourceCounts(ctx, req.name);
      for (const r of listed)
        await ok(ctx.provider.deleteSecondary!(r.id, ctx.opts()), `deleteSecondary(${r.id})`);
      const after = await resourceCounts(ctx, req.name);
      check(after === before, `deleteSecondary removed parts of the live instance (${before} -> ${after})`);
      await ok(ctx.provider.get(id, ctx.opts()), 'get of the re-created instance');
      check(
        !(await ok(ctx.provider.listSecondary!(ctx.opts()), 'listSecondary')).some(
          (r) => r.instanceName === req.name,
        ),
        'listSecondary still lists parts of the re-created instance',
      );
    },
  },
  {
    id: 'LIST-10',
    group: 'listByTag',
    title:
      'listSecondary lists every part left after the machine was removed out of band, one ID and one kind per part; deleteSecondary removes exactly that part, and refuses a malformed or garbled ID',
    proves: 'garbage collection can always finish what a lost delete left behind',
    gate: 'secondaryResources = explicit-listable',
    applies: (f) =>
      f.profile.secondaryResources === 'explicit-listable' &&
      f.provider.listSecondary &&
      f.provider.deleteSecondary
        ? true
        : `profile.secondaryResources is "${f.profile.secondaryResources}" or listSecondary/deleteSecondary is absent`,
    async run(ctx) {
      const { req } = await oneInstance(ctx);
      const neighbour = await oneInstance(ctx);
      const had = await resourceCounts(ctx, req.name);
      if (had === 'none') ctx.skip('a create left no secondary resource the harness reports');
      await ctx.backend.removeInstance(req.name, req.placement.zone);
      const spared = await snapshot(ctx, neighbour.req.name);
      const everything = await ok(ctx.provider.listSecondary!(ctx.opts()), 'listSecondary');
      wellFormedSecondaries(everything, 'listSecondary');
      const listed = everything.filter((r) => r.instanceName === req.name);
      const partsOf = async () => (await ctx.backend.resources()).filter((r) => r.instance === req.name);
      const parts = (await partsOf()).length;
      check(listed.length === parts, `${parts} parts are left but listSecondary lists ${listed.length}`);
      check(new Set(listed.map((r) => r.id)).size === listed.length, 'listSecondary lists one part twice');
      // A secondary ID is parsed whole, like an instance ID: garbage around it never deletes the part.
      for (const r of listed) {
        const garbled = [`/${r.id}`, `${r.id}/`, `x${r.id}`, `${r.id}/x`, ` ${r.id}`, `${r.id}\n`];
        for (const bad of [...garbled, [r.id] as unknown as string]) {
          const s = await outcome(
            ctx.provider.deleteSecondary!(bad, ctx.opts()),
            `deleteSecondary(${JSON.stringify(bad)})`,
          );
          check(
            s.ok || (ProviderError.isInstance(s.error) && s.error.kind === ErrorKind.Permanent),
            `deleteSecondary(${JSON.stringify(bad)}): expected Permanent INVALID_ID (or nothing done), got ${s.ok ? '' : describeError(s.error)}`,
          );
        }
      }
      check((await partsOf()).length === parts, 'deleteSecondary of a garbled ID removed a part');
      for (const bad of DEFAULT_MALFORMED_IDS) {
        await ctx.backend.clearCalls();
        const what = `deleteSecondary(${JSON.stringify(bad)})`;
        const err = await ctx.rejects(ctx.provider.deleteSecondary!(bad, ctx.opts()), what);
        expectKind(err, ErrorKind.Permanent, what);
        check(
          err.code === ErrorCode.InvalidId,
          `${what}: expected code ${ErrorCode.InvalidId}, got ${err.code}`,
        );
        namesBadId(err, bad, 'deleteSecondary');
        const made = await ctx.backend.calls();
        check(made.length === 0, `${what} made backend calls: ${made.map((c) => c.step).join(', ')}`);
      }
      // Which backend part each listed ID removes: one each, and one listed kind per kind of part.
      const kinds = new Map<string, string>();
      for (const r of listed) {
        check(typeof r.kind === 'string' && r.kind.trim() !== '', `listSecondary gives ${r.id} no kind`);
        const before = await partsOf();
        await ok(ctx.provider.deleteSecondary!(r.id, ctx.opts()), `deleteSecondary(${r.id})`);
        const after = await partsOf();
        const gone = before.filter((b) => !after.some((a) => a.name === b.name && a.zone === b.zone));
        check(gone.length === 1, `deleteSecondary(${r.id}) removed ${gone.length} parts; one ID is one part`);
        const kind = gone[0]!.kind;
        const prior = kinds.get(kind);
        check(
          prior === undefined || prior === r.kind,
          `listSecondary calls parts of kind ${kind} both ${prior} and ${r.kind}`,
        );
        kinds.set(kind, r.kind);
      }
      const named = new Set(kinds.values());
      check(
        named.size === kinds.size,
        `listSecondary gives different kinds of part the same kind: ${[...kinds].map(([k, v]) => `${k} as ${v}`).join(', ')}`,
      );
      // Again (absent is success), and without call options, which are optional.
      for (const r of listed) await ok(ctx.provider.deleteSecondary!(r.id), `deleteSecondary(${r.id}) again`);
      const left = await resourceCounts(ctx, req.name);
      check(left === 'none', `deleteSecondary left ${left}`);
      const after = await snapshot(ctx, neighbour.req.name);
      check(after === spared, `deleteSecondary changed a live neighbour: before ${spared}, after ${after}`);
    },
  },
];
