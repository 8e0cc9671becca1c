import { ErrorKind } from '@egress-proxies/contract';
import type { ConformanceCase } from '../case.js';
import type { CaseContext } from '../context.js';
import { check } from '../failure.js';
import { expectKind } from './helpers.js';

/** Requests no provider may act on, each with the field that is wrong. */
function badRequests(ctx: CaseContext) {
  const good = ctx.request();
  return [
    { what: 'an empty name', value: '', req: { ...good, name: '' } },
    {
      what: 'a name with a path separator',
      value: 'proxy-../../etc',
      req: { ...good, name: 'proxy-../../etc' },
    },
    { what: 'a uid that is not a string', value: '42', req: { ...good, uid: 42 as unknown as string } },
  ];
}

export const badRequestCases: ConformanceCase[] = [
  {
    id: 'CREATE-18',
    group: 'create',
    title: 'a malformed request (bad name, non-string uid) is Permanent, before any backend call',
    proves: 'a broken spec stops the reconciler with a clear error instead of reaching the backend',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      for (const { what, req } of badRequests(ctx)) {
        await ctx.backend.clearCalls();
        const err = await ctx.rejects(ctx.provider.create(req, ctx.opts()), `create with ${what}`);
        expectKind(err, ErrorKind.Permanent, `create with ${what}`);
        check(err.reason.trim() !== '', `create with ${what}: the error says nothing`);
        const calls = await ctx.backend.calls();
        check(
          calls.length === 0,
          `create with ${what} made backend calls first: ${calls.map((c) => c.step).join(', ')}`,
        );
      }
    },
  },
];
