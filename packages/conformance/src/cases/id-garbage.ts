import { isNotFound, ProviderError } from '@egress-proxies/contract';
import type { ConformanceCase } from '../case.js';
import { check, describeError } from '../failure.js';
import { oneInstance } from './get.js';
import { outcome, viewsNamed } from './helpers.js';

export const idGarbageCases: ConformanceCase[] = [
  {
    id: 'GET-13',
    group: 'get',
    title:
      'a real ID with something before or after it (or wrapped in an array) never reads or deletes that instance',
    proves: 'ID parsing is anchored: a corrupted status field cannot address a neighbour by accident',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      const { id, req } = await oneInstance(ctx);
      // An array of the ID reads as the ID itself once turned into a string: it is still no ID.
      const garbled = [
        `/${id}`,
        `${id}/`,
        `x${id}`,
        `${id}/x`,
        ` ${id}`,
        `${id}\n`,
        [id] as unknown as string,
      ];
      for (const bad of garbled) {
        const g = await outcome(ctx.provider.get(bad, ctx.opts()), `get(${JSON.stringify(bad)})`);
        check(!g.ok, `get(${JSON.stringify(bad)}) read the instance ${id}`);
        check(
          ProviderError.isInstance(g.error) && (g.error.kind === 'Permanent' || isNotFound(g.error)),
          `get(${JSON.stringify(bad)}): expected Permanent INVALID_ID or NotFound, got ${describeError(g.error)}`,
        );
        await outcome(ctx.provider.delete(bad, ctx.opts()), `delete(${JSON.stringify(bad)})`);
        check((await viewsNamed(ctx, req.name)).length === 1, `delete(${JSON.stringify(bad)}) removed ${id}`);
      }
    },
  },
];
