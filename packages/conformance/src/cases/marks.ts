import { randomUUID } from 'node:crypto';
import { ErrorCode, ErrorKind } from '@egress-proxies/contract';
import type { ConformanceCase } from '../case.js';
import type { CaseContext } from '../context.js';
import { check } from '../failure.js';
import { expectKind, near, ok, snapshot } from './helpers.js';

/** Characters a mark written as markup must escape, and escapes that must stay literal. */
const MARKUP = `<&>"'&amp;&lt;&quot;`;

/** A mark variant on an instance with the request's own UID: not ours, so never read, adopted or removed. */
async function notOurs(
  ctx: CaseContext,
  variant: { managed?: false; written?: 'other-tool' },
  what: string,
): Promise<void> {
  const req = ctx.request();
  // The request's own UID: only the variant makes it not ours.
  const id = await ctx.seed({ name: req.name, mark: { uid: req.uid, ...variant } });
  const before = await snapshot(ctx, req.name);
  const err = await ctx.rejects(ctx.provider.get(id, ctx.opts()), `get of ${what}`);
  expectKind(err, ErrorKind.NotFound, `get of ${what}`);
  const listed = await ok(ctx.provider.listByTag(ctx.opts()), 'listByTag');
  check(!listed.some((i) => i.id === id), `listByTag listed ${what} ${id}`);
  const refused = await ctx.rejects(ctx.create(req), `create over ${what}`);
  expectKind(refused, ErrorKind.Permanent, `create over ${what}`);
  check(
    refused.code === ErrorCode.UnmarkedInstance,
    `create over ${what}: expected code ${ErrorCode.UnmarkedInstance}, got ${refused.code}`,
  );
  await ok(ctx.provider.delete(id, ctx.opts()), `delete of ${what}`);
  const after = await snapshot(ctx, req.name);
  check(before === after, `${what} was changed: before ${before}, after ${after}`);
}

export const markCases: ConformanceCase[] = [
  {
    id: 'CREATE-20',
    group: 'create',
    title:
      'a uid and an installation holding markup characters are read back exactly by get and listByTag, and the instance is adopted again',
    proves:
      'a mark written as text (metadata, description lines, state files) is escaped on the way in and out, so its owner is never misread',
    gate: 'gcMark != native-labels',
    applies: (f) =>
      f.profile.gcMark !== 'native-labels' ||
      'profile.gcMark is "native-labels": label values cannot hold markup characters',
    async run(ctx) {
      const req = ctx.request({ uid: `${randomUUID()}${MARKUP}`, installation: `inst-${MARKUP}` });
      const id = await ok(ctx.create(req), 'create with markup in the uid and the installation');
      const inst = await ok(ctx.provider.get(id, ctx.opts()), 'get');
      check(
        inst.uid === req.uid,
        `get read uid ${JSON.stringify(inst.uid)}; create wrote ${JSON.stringify(req.uid)}`,
      );
      check(
        inst.installation === req.installation,
        `get read installation ${JSON.stringify(inst.installation)}; create wrote ${JSON.stringify(req.installation)}`,
      );
      const listed = (await ok(ctx.provider.listByTag(ctx.opts()), 'listByTag')).filter((i) => i.id === id);
      check(listed.length === 1, `listByTag returned ${listed.length} entries for ${id}`);
      check(
        listed[0]!.uid === req.uid && listed[0]!.installation === req.installation,
        `listByTag read uid ${JSON.stringify(listed[0]!.uid)} and installation ${JSON.stringify(listed[0]!.installation)}; create wrote ${JSON.stringify(req.uid)} and ${JSON.stringify(req.installation)}`,
      );
      const again = await ok(ctx.create(req), 'the same create again (the mark must read as this UID)');
      check(again === id, `the repeated create returned ${again}, the first ${id}`);
    },
  },
  {
    id: 'GET-14',
    group: 'get',
    title:
      'a mark saying managed="false" is not ours: get is NotFound, listByTag leaves it out, create refuses it and delete leaves it alone',
    proves:
      'an instance whose owner switched management off (or a copy of a mark with the flag off) is never collected, adopted or removed',
    gate: 'backend.markVariants includes managed-false',
    applies: (f) =>
      f.backend.markVariants?.includes('managed-false')
        ? true
        : 'backend.markVariants lacks "managed-false": the harness cannot seed a mark with the managed flag off',
    async run(ctx) {
      await notOurs(ctx, { managed: false }, 'a managed="false" instance');
    },
  },
  {
    id: 'GET-15',
    group: 'get',
    title:
      'a written createdAt that does not parse reads as absent: get and listByTag still answer, with the uid',
    proves:
      'one damaged timestamp neither hides an instance from garbage collection nor fails every reconcile of it',
    gate: 'createdAt = written-at-create, backend.markVariants includes unparsable-created-at',
    applies: (f) => {
      if (f.profile.createdAt !== 'written-at-create')
        return `profile.createdAt is "${f.profile.createdAt}": the backend keeps the time, nothing is parsed`;
      return f.backend.markVariants?.includes('unparsable-created-at')
        ? true
        : 'backend.markVariants lacks "unparsable-created-at": the harness cannot write a bad creation time';
    },
    async run(ctx) {
      const uid = randomUUID();
      const id = await ctx.seed({ name: ctx.name(), mark: { uid, createdAt: new Date(Number.NaN) } });
      const inst = await ok(
        ctx.provider.get(id, ctx.opts()),
        'get of an instance with an unparsable createdAt',
      );
      check(inst.uid === uid, `get read uid ${JSON.stringify(inst.uid)}; the mark holds ${uid}`);
      check(
        inst.createdAt === undefined,
        `get read createdAt ${String(inst.createdAt)} from text that is no time`,
      );
      const listed = (await ok(ctx.provider.listByTag(ctx.opts()), 'listByTag')).filter((i) => i.id === id);
      check(listed.length === 1, `listByTag returned ${listed.length} entries for ${id}`);
      check(
        listed[0]!.createdAt === undefined,
        `listByTag read createdAt ${String(listed[0]!.createdAt)} from text that is no time`,
      );
    },
  },
  {
    id: 'GET-16',
    group: 'get',
    title:
      "another tool's look-alike mark (the same shape under its own name or namespace) is no mark: get is NotFound, listByTag leaves it out, create refuses it, delete leaves it alone",
    proves:
      'a machine another tool on the same backend tagged its own way is never collected, adopted or removed',
    gate: 'backend.markVariants includes other-tool',
    applies: (f) =>
      f.backend.markVariants?.includes('other-tool')
        ? true
        : 'backend.markVariants lacks "other-tool": the harness cannot write another tool\'s look-alike mark',
    async run(ctx) {
      await notOurs(ctx, { written: 'other-tool' }, "an instance with another tool's look-alike mark");
    },
  },
  {
    id: 'GET-17',
    group: 'get',
    title:
      'our mark laid out by another writer (whitespace around and between its parts) reads as the mark: get and listByTag read its uid, installation and createdAt, create adopts it',
    proves:
      'a backend or a human that reformats the metadata never turns an owned machine into a stranger (refused, never collected)',
    gate: 'backend.markVariants includes reformatted',
    applies: (f) =>
      f.backend.markVariants?.includes('reformatted')
        ? true
        : 'backend.markVariants lacks "reformatted": the harness cannot lay a mark out another way',
    async run(ctx) {
      const req = ctx.request();
      const createdAt = new Date(Date.now() - 3_600_000);
      const id = await ctx.seed({
        name: req.name,
        mark: { uid: req.uid, createdAt, installation: req.installation!, written: 'reformatted' },
      });
      const what = 'a reformatted mark';
      const inst = await ok(ctx.provider.get(id, ctx.opts()), `get of ${what}`);
      check(inst.uid === req.uid, `get of ${what} read uid ${JSON.stringify(inst.uid)}; it holds ${req.uid}`);
      check(
        inst.installation === req.installation,
        `get of ${what} read installation ${JSON.stringify(inst.installation)}; it holds ${req.installation}`,
      );
      if (ctx.profile.createdAt === 'written-at-create')
        check(
          near(inst.createdAt, createdAt),
          `get of ${what} read createdAt ${String(inst.createdAt)}; it holds ${createdAt.toISOString()}`,
        );
      const listed = (await ok(ctx.provider.listByTag(ctx.opts()), 'listByTag')).filter((i) => i.id === id);
      check(
        listed.length === 1 && listed[0]!.uid === req.uid,
        `listByTag did not list ${what} with its uid: ${JSON.stringify(listed)}`,
      );
      const again = await ok(ctx.create(req), `create over ${what} with its own UID`);
      check(again === id, `create over ${what} returned ${again}, not the instance ${id}`);
    },
  },
];
