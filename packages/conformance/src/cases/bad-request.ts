import { ErrorCode, ErrorKind, type Placement } from '@egress-proxies/contract';
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
    title:
      'a malformed request (bad name, non-string uid) is Permanent INVALID_REQUEST, before any backend call',
    proves: 'a broken spec stops the reconciler with a clear error instead of reaching the backend',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      for (const { what, req } of badRequests(ctx)) {
        await ctx.backend.clearCalls();
        const err = await ctx.rejects(ctx.provider.create(req, ctx.opts()), `create with ${what}`);
        expectKind(err, ErrorKind.Permanent, `create with ${what}`);
        check(
          err.code === ErrorCode.InvalidRequest,
          `create with ${what}: expected code ${ErrorCode.InvalidRequest}, got ${err.code}`,
        );
        const calls = await ctx.backend.calls();
        check(
          calls.length === 0,
          `create with ${what} made backend calls first: ${calls.map((c) => c.step).join(', ')}`,
        );
      }
    },
  },
  {
    id: 'CREATE-21',
    group: 'create',
    title:
      'a placement without a field the provider cannot default is Permanent, naming the field and the allowed values, before any backend call',
    proves:
      'a Proxy whose spec leaves out its zone, machine type or image stops with an error saying what to set',
    gate: 'config.requiredPlacement',
    applies: (f) =>
      (f.config.requiredPlacement?.length ?? 0) > 0 ||
      'config.requiredPlacement is absent: the harness names no placement field create cannot default',
    async run(ctx) {
      for (const field of ctx.config.requiredPlacement!) {
        const req = ctx.request();
        const placement: Placement = { ...req.placement };
        delete placement[field];
        const what = `create without placement.${field}`;
        await ctx.backend.clearCalls();
        const err = await ctx.rejects(ctx.provider.create({ ...req, placement }, ctx.opts()), what);
        expectKind(err, ErrorKind.Permanent, what);
        check(
          err.code === ErrorCode.InvalidPlacement || err.code === ErrorCode.InvalidRequest,
          `${what}: expected code ${ErrorCode.InvalidPlacement} or ${ErrorCode.InvalidRequest}, got ${err.code}`,
        );
        const words = field.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
        const message = err.message.toLowerCase();
        check(
          message.includes(field.toLowerCase()) || message.includes(words),
          `${what}: the error does not name the field: ${err.message}`,
        );
        const allowed = ctx.config.placement[field];
        check(
          allowed === undefined || err.message.includes(allowed),
          `${what}: the error does not list the allowed values (${JSON.stringify(allowed)} is one): ${err.message}`,
        );
        const calls = await ctx.backend.calls();
        check(calls.length === 0, `${what} made backend calls first: ${calls.map((c) => c.step).join(', ')}`);
      }
    },
  },
];
