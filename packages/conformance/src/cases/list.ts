import { randomUUID } from 'node:crypto';
import { ErrorKind, type Instance } from '@egress-proxies/contract';
import type { ConformanceCase } from '../case.js';
import type { CaseContext } from '../context.js';
import { check, describeError } from '../failure.js';
import {
  expectKind,
  observe,
  ok,
  outcome,
  resourceCounts,
  stepsOf,
  viewsNamed,
  wellFormedInstances,
  wellFormedSecondaries,
} from './helpers.js';

async function list(ctx: CaseContext, what = 'listByTag'): Promise<Instance[]> {
  const all = await ok(ctx.provider.listByTag(ctx.opts()), what);
  wellFormedInstances(ctx, all, what);
  return all;
}

export const listCases: ConformanceCase[] = [
  {
    id: 'LIST-01',
    group: 'listByTag',
    title: 'unmarked instances are excluded',
    proves: 'garbage collection can never pick a machine it did not create',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      const unmarked = await ctx.seed({ name: ctx.name(), mark: 'none' });
      const marked = await ctx.seed({ name: ctx.name(), mark: { uid: randomUUID() } });
      const ids = (await list(ctx)).map((i) => i.id);
      check(!ids.includes(unmarked), `listByTag returned the unmarked instance ${unmarked}`);
      check(ids.includes(marked), `listByTag missed the marked instance ${marked}`);
    },
  },
  {
    id: 'LIST-02',
    group: 'listByTag',
    title: 'a marked instance with an empty UID is still listed',
    proves: 'instances from before UIDs were written are still collected',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      const id = await ctx.seed({ name: ctx.name(), mark: { uid: '' } });
      const found = (await list(ctx)).find((i) => i.id === id);
      check(found, `listByTag missed the marked instance with an empty UID (${id})`);
      check(found.uid === '', `its uid reads ${JSON.stringify(found.uid)}, expected ""`);
    },
  },
  {
    id: 'LIST-03',
    group: 'listByTag',
    title: 'id, uid, createdAt and installation are right for every listed instance, with no address call',
    proves:
      'the four fields garbage collection relies on come from the listing and the mark (state and ip are not relied on)',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      const before = new Date();
      const reqs = [ctx.request(), ctx.request()];
      const ids: string[] = [];
      for (const r of reqs) ids.push(await ok(ctx.create(r), 'create'));
      const after = new Date();
      const foreignUid = randomUUID();
      const foreign = await ctx.seed({
        name: ctx.name(),
        mark: { uid: foreignUid, createdAt: new Date('2023-05-06T07:08:09Z') },
      });
      const calls = await observe(ctx, () => list(ctx));
      const all = await list(ctx);
      const address = ctx.backend.steps.address;
      check(
        !address || !calls.some((c) => c.step === address),
        `listByTag made an address call (${address}); garbage collection needs only the listing and the mark`,
      );
      for (const [i, r] of reqs.entries()) {
        const found = all.filter((x) => x.id === ids[i]);
        check(found.length === 1, `listByTag returned ${found.length} entries for ${ids[i]}`);
        const f = found[0]!;
        check(f.uid === r.uid, `listByTag read uid ${f.uid} for ${f.id}; create wrote ${r.uid}`);
        check(
          f.installation === r.installation,
          `listByTag read installation ${f.installation} for ${f.id}; create wrote ${r.installation}`,
        );
        check(
          f.createdAt instanceof Date &&
            f.createdAt.getTime() >= before.getTime() - 1_000 &&
            f.createdAt.getTime() <= after.getTime() + 1_000,
          `listByTag read createdAt ${f.createdAt?.toISOString()} for ${f.id}, outside the create`,
        );
      }
      const f = all.find((x) => x.id === foreign);
      check(f, `listByTag missed the marked instance ${foreign} that has another UID`);
      check(f.uid === foreignUid, `listByTag read uid ${f.uid} for ${foreign}; the mark holds ${foreignUid}`);
      if (ctx.profile.createdAt === 'written-at-create') {
        check(
          f.createdAt?.toISOString() === '2023-05-06T07:08:09.000Z',
          `listByTag read createdAt ${f.createdAt?.toISOString()} for ${foreign}; the mark holds 2023-05-06T07:08:09Z`,
        );
      } else {
        // A backend timestamp cannot be backdated by seeding; the created instances above check it.
        check(f.createdAt instanceof Date, `listByTag read no createdAt for ${foreign}`);
      }
    },
  },
  {
    id: 'LIST-11',
    group: 'listByTag',
    title:
      "marked instances of other installations are listed beside the provider's own, each with the installation its mark holds",
    proves:
      "one installation never hides another's machines from garbage collection (which decides by installation itself), whatever the provider created",
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      const own = ctx.request();
      const ownId = await ok(ctx.create(own), 'create');
      const others = new Map<string, string | undefined>([[ownId, own.installation]]);
      for (const installation of ['another-installation', undefined]) {
        const id = await ctx.seed({
          name: ctx.name(),
          mark: { uid: randomUUID(), ...(installation ? { installation } : {}) },
        });
        others.set(id, installation);
      }
      const all = await list(ctx);
      for (const [id, installation] of others) {
        const found = all.filter((i) => i.id === id);
        check(
          found.length === 1,
          `listByTag returned ${found.length} entries for ${id} (installation ${installation ?? 'none'}); every marked instance is listed once`,
        );
        check(
          found[0]!.installation === installation,
          `listByTag read installation ${found[0]!.installation} for ${id}; the mark holds ${installation}`,
        );
      }
    },
  },
  {
    id: 'LIST-04',
    group: 'listByTag',
    title:
      'a partial failure follows the declared list-partial policy, in listByTag and listSecondary alike; a target left out is named in a line',
    proves: 'an unreachable zone either fails the whole list or is left out, exactly as the profile says',
    gate: 'listPartial != not-applicable, two zones',
    applies: (f) => {
      if (f.profile.listPartial === 'not-applicable')
        return 'profile.listPartial is "not-applicable" (one call)';
      return (f.config.zones?.length ?? 0) >= 2 || 'the harness configures fewer than two zones';
    },
    async run(ctx) {
      const [z0, z1] = ctx.config.zones as [string, string];
      const a = ctx.request({ zone: z0 });
      const b = ctx.request({ zone: z1 });
      const ida = await ok(ctx.create(a), `create in ${z0}`);
      const idb = await ok(ctx.create(b), `create in ${z1}`);
      await ctx.backend.setUnreachable(true, z1);
      const l = ctx.logger(1);
      const s = await outcome(
        ctx.provider.listByTag({ logger: l.logger }),
        `listByTag with ${z1} unreachable`,
      );
      if (ctx.profile.listPartial === 'fail-whole') {
        check(!s.ok, `listByTag with ${z1} unreachable succeeded; the profile says fail-whole`);
        expectKind(s.error, ErrorKind.Transient, `listByTag with ${z1} unreachable`);
      } else {
        check(
          s.ok,
          `listByTag with ${z1} unreachable failed (${s.ok ? '' : describeError(s.error)}); the profile says omit-unreachable`,
        );
        const ids = s.value.map((i) => i.id);
        check(ids.includes(ida), `listByTag with ${z1} unreachable missed ${ida} in ${z0}`);
        check(!ids.includes(idb), `listByTag listed ${idb} from the unreachable ${z1}`);
        // 2.9: a line about a target carries it; what was left out must be findable in the log.
        if (ctx.profile.logging !== 'none')
          check(
            l.lines.some((line) => Object.entries(line).some(([k, v]) => k !== 'msg' && v === z1)),
            `listByTag left ${z1} out without a line naming it: ${JSON.stringify(l.lines)}`,
          );
      }
      // listSecondary follows the same policy, and never reads a live instance's parts as left over.
      if (ctx.provider.listSecondary && ctx.profile.secondaryResources === 'explicit-listable') {
        const t = await outcome(
          ctx.provider.listSecondary(ctx.opts()),
          `listSecondary with ${z1} unreachable`,
        );
        if (ctx.profile.listPartial === 'fail-whole') {
          check(!t.ok, `listSecondary with ${z1} unreachable succeeded; the profile says fail-whole`);
          expectKind(t.error, ErrorKind.Transient, `listSecondary with ${z1} unreachable`);
        } else {
          check(
            t.ok,
            `listSecondary with ${z1} unreachable failed (${t.ok ? '' : describeError(t.error)}); the profile says omit-unreachable`,
          );
          const live = t.value.filter((r) => r.instanceName === a.name || r.instanceName === b.name);
          check(live.length === 0, `listSecondary with ${z1} unreachable lists parts of live instances`);
        }
      }
    },
  },
  {
    id: 'LIST-05',
    group: 'listByTag',
    title: 'an unreadable entry follows the declared policy (skipped, or the list fails)',
    proves: 'one garbled mark neither hides every other instance nor is read as ours',
    gate: 'listSkipsUnreadable, backend.corrupt',
    applies: (f) => (f.backend.corrupt ? true : 'the backend control has no corrupt()'),
    async run(ctx) {
      const good = await ctx.seed({ name: ctx.name(), mark: { uid: randomUUID() } });
      const badName = ctx.name();
      const bad = await ctx.seed({ name: badName, mark: { uid: randomUUID() } });
      await ctx.backend.corrupt!(badName);
      const s = await outcome(ctx.provider.listByTag(ctx.opts()), 'listByTag with an unreadable entry');
      if (ctx.profile.listSkipsUnreadable) {
        check(s.ok, `listByTag with one unreadable entry failed: ${s.ok ? '' : describeError(s.error)}`);
        const ids = s.value.map((i) => i.id);
        check(ids.includes(good), `listByTag with one unreadable entry missed the readable ${good}`);
        check(!ids.includes(bad), `listByTag listed the unreadable entry ${bad}`);
      } else {
        check(!s.ok, 'listByTag with an unreadable entry succeeded; the profile says it fails');
        expectKind(s.error, ErrorKind.Transient, 'listByTag with an unreadable entry');
      }
    },
  },
  {
    id: 'LIST-06',
    group: 'listByTag',
    title: "listSecondary finds what a failed create left and never a live instance's resources",
    proves:
      'garbage collection can clean up after a crash between create steps without touching live machines',
    gate: 'secondaryResources = explicit-listable',
    applies: (f) => {
      if (f.profile.secondaryResources !== 'explicit-listable') {
        return `profile.secondaryResources is "${f.profile.secondaryResources}": nothing to list`;
      }
      return f.provider.listSecondary && f.provider.deleteSecondary
        ? true
        : 'the provider has no listSecondary/deleteSecondary';
    },
    async run(ctx) {
      const live = ctx.request();
      const steps = stepsOf(await observe(ctx, () => ok(ctx.create(live), 'create')));
      let orphaned = 0;
      for (const step of steps) {
        await ctx.backend.reset();
        const req = ctx.request();
        await ctx.backend.failNext(step, 1, 'internal');
        const s = await outcome(ctx.create(req), `create failing at ${step}`);
        if (s.ok) ctx.track(s.value);
        await ctx.backend.reset();
        if ((await viewsNamed(ctx, req.name)).length > 0) continue;
        const left = (await ctx.backend.resources()).filter((r) => r.instance === req.name);
        if (left.length === 0) continue;
        orphaned += 1;
        const all = await ok(ctx.provider.listSecondary!(ctx.opts()), 'listSecondary');
        wellFormedSecondaries(all, 'listSecondary');
        const listed = all.filter((r) => r.instanceName === req.name);
        check(
          listed.length === left.length,
          `after a failure at ${step}, ${left.length} resources are left but listSecondary lists ${listed.length}`,
        );
        for (const r of listed)
          await ok(ctx.provider.deleteSecondary!(r.id, ctx.opts()), `deleteSecondary(${r.id})`);
        const rest = await resourceCounts(ctx, req.name);
        check(rest === 'none', `deleteSecondary left ${rest} after a failure at ${step}`);
      }
      const all = await ok(ctx.provider.listSecondary!(ctx.opts()), 'listSecondary');
      check(
        !all.some((r) => r.instanceName === live.name),
        `listSecondary lists resources of the live instance ${live.name}`,
      );
      if (orphaned === 0) ctx.skip('no failed create step left resources without an instance');
    },
  },
];
