import { parseDuration } from '../api/duration.js';
import type { ProxyPoolSpec } from '../api/proxy-pool.js';
import type { PlanInput, PlanMember } from './plan-pool.js';
import type { SpreadTarget } from './spread.js';
import { templateHash } from './template-hash.js';

/** Where a pool's members go: its spread, or the template's own provider and zone. */
export function spreadTargets(spec: ProxyPoolSpec): SpreadTarget[] {
  if (spec.spread?.length)
    return spec.spread.map((s) => ({
      provider: s.provider,
      ...(s.zone ? { zone: s.zone } : {}),
      weight: s.weight,
    }));
  const zone = spec.template.placement?.zone;
  return [{ provider: spec.template.provider ?? '', ...(zone ? { zone } : {}), weight: 1 }];
}

/** The planner's input for a pool, in the cluster and under `up` alike. */
export function planInputFor(
  spec: ProxyPoolSpec,
  members: readonly PlanMember[],
  now: number,
  recycle?: string,
): PlanInput {
  const rotation = spec.rotation;
  return {
    replicas: spec.replicas,
    templateHash: templateHash(spec.template),
    targets: spreadTargets(spec),
    ...(rotation?.maxAge ? { maxAgeMs: parseDuration(rotation.maxAge) } : {}),
    maxSurge: rotation?.maxSurge ?? 1,
    minReady: rotation?.minReady ?? 0,
    recycleBanned: rotation?.onBan === 'Recycle',
    recycleDuplicateEgress: rotation?.onDuplicateEgress === 'Recycle',
    ...(recycle ? { recycle } : {}),
    members,
    now,
  };
}
