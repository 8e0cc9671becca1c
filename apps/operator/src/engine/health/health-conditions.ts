import type { ProviderHealthStatus } from '../../api/provider-health.js';
import { setCondition } from '../reconcile/conditions.js';

/** Why a ProviderHealth is (not) Ready, as the condition's reason. */
function readyReason(status: ProviderHealthStatus): string {
  if (status.ready) return 'AllTargetsReady';
  if (!status.targets) return status.message === 'this provider has no Checker' ? 'NoChecker' : 'CheckFailed';
  return status.targets.length === 0 ? 'NoTargets' : 'TargetsNotReady';
}

/**
 * Adds the Ready condition to a fresh check result. The previous conditions come from the last
 * write of this process: the transition time moves only when readiness flips.
 */
export function withHealthConditions(
  status: ProviderHealthStatus,
  previous: ProviderHealthStatus['conditions'],
  now: Date,
  /** The reason when the caller knows better than the status does (a module that failed to load). */
  reason?: string,
): ProviderHealthStatus {
  const notReady = status.targets?.filter((t) => !t.ready).map((t) => `${t.target}: ${t.reason}`);
  const message = status.ready
    ? `${status.summary} targets ready`
    : (status.message ?? `not ready: ${notReady?.join(', ') || 'no targets'}`);
  const conditions = setCondition(
    previous,
    {
      type: 'Ready',
      status: status.ready ? 'True' : 'False',
      reason: reason ?? readyReason(status),
      message,
    },
    now,
  );
  return { ...status, conditions };
}
