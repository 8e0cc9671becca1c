import type { ConformanceCase } from '../case.js';
import type { CaseContext } from '../context.js';
import { check } from '../failure.js';
import type { ConformanceFixture } from '../fixture.js';
import { ok, outcome } from './helpers.js';

function applies(f: ConformanceFixture): true | string {
  if (f.config.cloudInitNotDelivered)
    return `config.cloudInitNotDelivered: ${f.config.cloudInitNotDelivered}`;
  return f.backend.deliveredCloudInit
    ? true
    : 'backend.deliveredCloudInit is absent: the harness cannot read what the backend received';
}

/** A cloud-init that breaks naive handling: CRLF, tabs, trailing blanks, non-ASCII, no final newline. */
function awkwardCloudInit(ctx: CaseContext): string {
  return `#cloud-config\r\nwrite_files:\n  - path: /etc/${ctx.cloudInitSentinel}\n    content: "tab\\there ünïcødé ✓"  \n\truncmd: [ "echo", "$HOME" ]\n# ${'x'.repeat(3000)}`;
}

async function delivered(
  ctx: CaseContext,
  name: string,
  zone: string | undefined,
  want: string,
  what: string,
) {
  const got = await ctx.backend.deliveredCloudInit!(name, zone);
  check(got !== undefined, `${what}: the backend received no cloud-init`);
  check(
    got === want,
    `${what}: the backend received ${got.length} characters that differ from the request's ${want.length} (first difference at ${firstDifference(got, want)})`,
  );
}

function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  return i;
}

export const cloudInitCases: ConformanceCase[] = [
  {
    id: 'CREATE-17',
    group: 'create',
    title: "the cloud-init the backend received is the request's, byte for byte, also after a failed step",
    proves:
      'user-data reaches the machine unchanged (no trimming, re-encoding or truncation), and a retry never keeps a cut-off copy',
    gate: 'backend.deliveredCloudInit (config.cloudInitNotDelivered says why not)',
    applies,
    timeoutMs: 30_000,
    async run(ctx) {
      const req = ctx.request({ cloudInit: awkwardCloudInit(ctx) });
      await ok(ctx.create(req), 'create');
      await delivered(ctx, req.name, req.placement.zone, req.cloudInit!, 'a clean create');
      // Every step in turn fails once on a fresh request; the retry must still deliver the request's bytes.
      const probe = ctx.request({ cloudInit: awkwardCloudInit(ctx) });
      await ctx.backend.clearCalls();
      await ok(ctx.create(probe), 'create');
      const steps = [...new Set((await ctx.backend.calls()).map((c) => c.step))];
      for (const step of steps) {
        const r = ctx.request({ cloudInit: `${awkwardCloudInit(ctx)}\n# ${step}` });
        await ctx.backend.failNext(step, 1, 'internal');
        await outcome(ctx.create(r), `create failing at ${step}`);
        await ctx.backend.reset();
        await ok(ctx.create(r), `the retry after a failure at ${step}`);
        await delivered(ctx, r.name, r.placement.zone, r.cloudInit!, `the retry after a failure at ${step}`);
      }
    },
  },
];
