import { ErrorKind, type Placement } from '@egress-proxies/contract';
import type { ConformanceCase } from '../case.js';
import { check, describeError } from '../failure.js';
import type { ConformanceConfig, PlacementField } from '../fixture.js';
import { expectKind, isHealthy, observe, ok, outcome } from './helpers.js';

const FIELDS: readonly PlacementField[] = ['zone', 'machineType', 'image'];

/** The placement fields the harness sets that the provider declares it can default. */
function defaulted(f: { config: ConformanceConfig }): PlacementField[] {
  const required = f.config.requiredPlacement ?? [];
  return FIELDS.filter((x) => !required.includes(x) && f.config.placement[x] !== undefined);
}

export const requestVariantCases: ConformanceCase[] = [
  {
    id: 'CREATE-22',
    group: 'create',
    title:
      'a request leaving out a placement field the provider defaults (one not in config.requiredPlacement) is created and runs',
    proves:
      'a Proxy that relies on a documented default (the only configured host, a default machine type or image) is not refused',
    gate: 'config.requiredPlacement leaves a field out',
    applies: (f) => {
      if (!f.config.requiredPlacement)
        return 'config.requiredPlacement is not declared: the kit cannot tell a defaulted field from a required one';
      return (
        defaulted(f).length > 0 ||
        'config.requiredPlacement names every placement field the harness sets: none is defaulted'
      );
    },
    timeoutMs: 30_000,
    async run(ctx) {
      for (const field of defaulted(ctx)) {
        const req = ctx.request();
        const placement: Placement = { ...req.placement };
        delete placement[field];
        const what = `create without placement.${field}`;
        const id = await ok(ctx.create({ ...req, placement }), what);
        const inst = await ok(ctx.provider.get(id, ctx.opts()), `get after ${what}`);
        check(isHealthy(ctx, inst), `${what}: get answered ${JSON.stringify(inst)}, not a running instance`);
      }
    },
  },
  {
    id: 'CREATE-23',
    group: 'create',
    title:
      'a request without cloud-init is created with none delivered (nothing made up), or refused Permanent naming cloud-init before any backend call',
    proves:
      'a machine never boots on user-data its Proxy did not give, and a provider that needs cloud-init says so instead of failing later',
    gate: 'always',
    applies: () => true,
    timeoutMs: 30_000,
    async run(ctx) {
      const { cloudInit: _, ...req } = ctx.request();
      const what = 'create without cloud-init';
      let settled: Awaited<ReturnType<typeof outcome<string>>> | undefined;
      const calls = await observe(ctx, async () => {
        settled = await outcome(ctx.create(req, ctx.opts()), what);
      });
      const s = settled!;
      if (!s.ok) {
        const err = await ctx.rejects(Promise.reject(s.error), what);
        expectKind(err, ErrorKind.Permanent, what);
        check(
          /cloud-?init/i.test(err.message),
          `${what} was refused without naming cloud-init: ${describeError(err)}`,
        );
        check(calls.length === 0, `${what} was refused after ${calls.length} backend calls`);
        ctx.note('the provider refuses a request without cloud-init');
        return;
      }
      if (ctx.config.cloudInitNotDelivered || !ctx.backend.deliveredCloudInit) {
        ctx.note('created; the harness cannot read what was delivered');
        return;
      }
      const delivered = await ctx.backend.deliveredCloudInit(req.name, req.placement.zone);
      check(
        delivered === undefined || delivered === '',
        `${what}: the backend received cloud-init ${JSON.stringify(delivered)} though the request carried none`,
      );
    },
  },
];
