import { ErrorCode, ErrorKind } from '@egress-proxies/contract';
import type { ConformanceCase } from '../case.js';
import { check } from '../failure.js';
import { oneInstance } from './get.js';
import { expectKind, ok, resourceCounts, viewsNamed } from './helpers.js';

export const closeCases: ConformanceCase[] = [
  {
    id: 'OPS-09',
    group: 'operations',
    title: 'every operation after close, check included, is Permanent PROVIDER_CLOSED and touches nothing',
    proves:
      'one stable code tells every caller the entry was closed, in every provider, and a closed entry cannot change the backend',
    gate: 'provider.close',
    applies: (f) => (f.provider.close ? true : 'the provider has no close()'),
    async run(ctx) {
      const { provider, checker } = ctx;
      const live = await oneInstance(ctx);
      const before = await resourceCounts(ctx, live.req.name);
      await ok(provider.close!(), 'close');
      await ctx.backend.clearCalls();
      const req = ctx.request();
      const calls: [string, () => Promise<unknown>][] = [
        ['create', () => provider.create(req, ctx.opts())],
        ['get', () => provider.get(live.id, ctx.opts())],
        ['delete', () => provider.delete(live.id, ctx.opts())],
        ['listByTag', () => provider.listByTag(ctx.opts())],
      ];
      if (provider.listSecondary) calls.push(['listSecondary', () => provider.listSecondary!(ctx.opts())]);
      // Any well-formed-looking ID: a closed provider must refuse before it parses or dials.
      if (provider.deleteSecondary)
        calls.push(['deleteSecondary', () => provider.deleteSecondary!(live.id, ctx.opts())]);
      if (checker) calls.push(['check', () => checker.check(ctx.opts())]);
      for (const [op, call] of calls) {
        const err = await ctx.rejects(call(), `${op} after close`);
        expectKind(err, ErrorKind.Permanent, `${op} after close`);
        check(
          err.code === ErrorCode.ProviderClosed,
          `${op} after close: expected code ${ErrorCode.ProviderClosed}, got ${err.code}`,
        );
        check(err.reason.trim() !== '', `${op} after close: the error says nothing`);
        check(
          err.provider === ctx.config.providerName && err.operation === op,
          `${op} after close: the error names ${JSON.stringify(err.provider)}/${JSON.stringify(err.operation)}, expected ${JSON.stringify(ctx.config.providerName)}/${op}`,
        );
      }
      const made = await ctx.backend.calls();
      check(
        made.length === 0,
        `calls after close reached the backend: ${made.map((c) => c.step).join(', ')}`,
      );
      check((await viewsNamed(ctx, req.name)).length === 0, 'create after close made an instance');
      check((await viewsNamed(ctx, live.req.name)).length === 1, 'delete after close removed the instance');
      const after = await resourceCounts(ctx, live.req.name);
      check(after === before, `calls after close changed the instance's resources (${before} -> ${after})`);
      // The provider is closed, so the kit's cleanup cannot delete through it: remove out of band.
      await ctx.backend.removeInstance(live.req.name, live.req.placement.zone);
      await ctx.backend.removeResources(live.req.name, live.req.placement.zone);
    },
  },
];
