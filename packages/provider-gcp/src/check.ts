import { CheckReason, type CheckResult, isAbortError } from '@egress-proxies/contract';
import type { ComputeQuota } from './backend.js';
import type { Context } from './context.js';
import { CredentialsError } from './credentials-error.js';
import { ComputeApiError } from './errors.js';
import { MANAGED_FILTER } from './list.js';

/** The region quotas whose headroom the Checker reports. */
export const QUOTA_METRICS = ['INSTANCES', 'CPUS', 'IN_USE_ADDRESSES'] as const;

/**
 * One aggregated-list page with maxResults=1 proves credentials, the Compute API being enabled
 * and `compute.instances.list` in one call. With zones configured, each of their regions' quota
 * for instances, CPUs and in-use addresses is read too; no headroom left on one the provider needs
 * makes the result not ready with reason QuotaExceeded.
 */
export async function check(ctx: Context): Promise<CheckResult[]> {
  const base = { target: ctx.cfg.project, address: ctx.address };
  const details: Record<string, string> = { project: ctx.cfg.project, ipMode: ctx.cfg.ipMode };
  try {
    const page = await ctx.api.aggregatedListInstances(ctx.signal, {
      filter: MANAGED_FILTER,
      maxResults: 1,
      returnPartialSuccess: true,
    });
    if (page.unreachables?.length) details.unreachableZones = page.unreachables.join(',');
  } catch (err) {
    return [{ ...base, ready: false, ...failure(err), details }];
  }
  if (ctx.cfg.regions.length === 0) {
    return [{ ...base, ready: true, reason: CheckReason.Ready, message: 'Compute API reachable', details }];
  }
  details.regions = ctx.cfg.regions.join(',');
  const exhausted: string[] = [];
  for (const region of ctx.cfg.regions) {
    let quotas: ComputeQuota[];
    try {
      quotas = (await ctx.api.getRegion(ctx.signal, region)).quotas ?? [];
    } catch (err) {
      const f = failure(err);
      return [
        { ...base, ready: false, reason: f.reason, message: `region ${region}: ${f.message}`, details },
      ];
    }
    for (const metric of QUOTA_METRICS) {
      const q = quotas.find((x) => x.metric === metric);
      if (!q) continue;
      const headroom = Math.max(0, q.limit - q.usage);
      details[`quota.${region}.${metric}.limit`] = String(q.limit);
      details[`quota.${region}.${metric}.usage`] = String(q.usage);
      details[`quota.${region}.${metric}.headroom`] = String(headroom);
      // Internal mode takes no external address, so in-use addresses do not block it.
      const needed = metric !== 'IN_USE_ADDRESSES' || ctx.cfg.ipMode === 'external';
      if (needed && headroom <= 0) exhausted.push(`${metric} in ${region}`);
    }
  }
  if (exhausted.length > 0) {
    return [
      {
        ...base,
        ready: false,
        reason: CheckReason.QuotaExceeded,
        message: `no quota headroom for ${exhausted.join(', ')}`,
        details,
      },
    ];
  }
  return [{ ...base, ready: true, reason: CheckReason.Ready, message: 'Compute API reachable', details }];
}

function failure(err: unknown): { reason: string; message: string } {
  const message = err instanceof Error ? err.message : String(err);
  if (isAbortError(err)) return { reason: CheckReason.Timeout, message };
  if (CredentialsError.isInstance(err)) return { reason: CheckReason.CredentialsUnavailable, message };
  if (ComputeApiError.isInstance(err)) {
    if (err.status === 401) return { reason: CheckReason.Unauthorized, message };
    if (err.status === 403) {
      if (err.reasons.includes('accessNotConfigured')) return { reason: 'APIDisabled', message };
      return { reason: CheckReason.Forbidden, message };
    }
    if (err.status === 429) return { reason: CheckReason.QuotaExceeded, message };
    return { reason: CheckReason.APIError, message };
  }
  return { reason: CheckReason.Unreachable, message };
}
