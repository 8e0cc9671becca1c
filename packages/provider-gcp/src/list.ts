import {
  ErrorCode,
  ErrorKind,
  type Instance,
  MANAGED_LABEL,
  MANAGED_VALUE,
  permanentError,
} from '@egress-proxies/contract';
import { zoneConfigured } from './config.js';
import type { Context } from './context.js';
import { classify } from './errors.js';
import { lastSegment } from './id.js';
import { isManaged, toInstance } from './to-instance.js';

export const MANAGED_FILTER = `labels.${MANAGED_LABEL} = "${MANAGED_VALUE}"`;

/**
 * Every managed instance in the project, through the aggregated list with
 * `returnPartialSuccess`: a zone Compute cannot read right now is left out (list-partial:
 * omit-unreachable) and named in a V1 log line, instead of failing the whole list.
 */
export async function listInstances(ctx: Context): Promise<Instance[]> {
  try {
    return await listAll(ctx);
  } catch (err) {
    // A 404 on the project-wide list means the project itself is missing: a config error.
    const c = classify(err);
    if (c.kind === ErrorKind.NotFound) {
      throw permanentError(c.reason, {
        code: ErrorCode.InvalidConfig,
        cause: err,
        details: { ...c.details },
      });
    }
    throw c;
  }
}

async function listAll(ctx: Context): Promise<Instance[]> {
  const { signal, logger } = ctx;
  const out: Instance[] = [];
  const unreachable = new Set<string>();
  let pageToken: string | undefined;
  do {
    const page = await ctx.api.aggregatedListInstances(signal, {
      filter: MANAGED_FILTER,
      maxResults: ctx.listPageSize,
      returnPartialSuccess: true,
      ...(pageToken ? { pageToken } : {}),
    });
    for (const u of page.unreachables ?? []) unreachable.add(u);
    for (const [scope, scoped] of Object.entries(page.items ?? {})) {
      for (const inst of scoped.instances ?? []) {
        // The filter is the server's; checking again costs nothing and guards a proxy or fake that ignores it.
        if (!isManaged(inst)) continue;
        const zone = inst.zone ? lastSegment(inst.zone) : lastSegment(scope);
        if (!zoneConfigured(ctx.cfg, zone)) continue;
        const item = toInstance(inst, zone, ctx.cfg.ipMode);
        logger.log(2, 'listed instance', { id: item.id, state: item.state });
        out.push(item);
      }
    }
    pageToken = page.nextPageToken || undefined;
  } while (pageToken);
  // One line per zone (2.9: a line about a target carries it), so a query for the zone finds it.
  for (const u of unreachable) {
    logger.log(1, 'list: zone unreachable, its instances are left out', {
      zone: lastSegment(u),
      unreachable: u,
    });
  }
  return out;
}
