import type { RunningGateway } from '../gateway/gateway-server.js';
import { type AutoscaleDecision, autoscalePolicy, planAutoscale } from '../pool/autoscale-plan.js';
import type { PoolDocument } from '../pool/pool-documents.js';
import type { AutoscaleRecord, PoolAutoscaleView } from './member-file.js';

type AutoscaleSpec = NonNullable<PoolDocument['spec']['autoscale']>;

/**
 * One autoscale round of a pool under `up`: the size from its gateway's load (the only replica
 * under `up`) and the record that remembers it with its clocks in pools.json.
 */
export function autoscaleRound(
  as: AutoscaleSpec,
  prev: AutoscaleRecord,
  load: ReturnType<RunningGateway['load']> | undefined,
  now: number,
): { decision: AutoscaleDecision; next: AutoscaleRecord } {
  const decision = planAutoscale({
    policy: autoscalePolicy(as),
    current: prev.replicas,
    reports: load ? [{ source: 'up', ...load }] : [],
    // In-process, the report is taken now; it is never stale.
    staleAfterMs: Number.POSITIVE_INFINITY,
    now,
    ...(prev.lastActiveTime !== undefined ? { lastActiveTime: prev.lastActiveTime } : {}),
    ...(prev.lastScaleTime !== undefined ? { lastScaleTime: prev.lastScaleTime } : {}),
  });
  const next: AutoscaleRecord = {
    replicas: decision.replicas,
    lastActiveTime: decision.lastActiveTime,
    ...(decision.lastScaleTime !== undefined ? { lastScaleTime: decision.lastScaleTime } : {}),
  };
  return { decision, next };
}

/** A pool's autoscale as `up` shows it: the bounds, the load the gateway saw and why the size is what it is. */
export function autoscaleView(as: AutoscaleSpec, decision: AutoscaleDecision | undefined): PoolAutoscaleView {
  return {
    min: as.minReplicas,
    max: as.maxReplicas,
    activeConnections: decision?.load.activeConnections ?? 0,
    requestsPerSecond: decision?.load.requestsPerSecond ?? 0,
    waiting: decision?.load.waiting ?? 0,
    reason: decision?.reason ?? 'Idle',
    message: decision?.message ?? 'not planned yet',
  };
}
