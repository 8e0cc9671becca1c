import type { Instance } from '@egress-proxies/contract';
import { ConditionType } from './conditions.js';
import { replaceInstance } from './instance-record.js';
import { condition, event, type PassState, rfc3339 } from './pass-state.js';
import { formatWindow, readinessWindowMs, STOPPED_GRACE_MS } from './readiness-window.js';
import { type Done, done } from './step-outcome.js';
import type { ProviderHandle } from './types.js';

/** What happens to an instance over time: the Stopped grace and the readiness window. */

/** A Stopped instance may come back by itself: it is replaced only after the grace period. */
export function stopped(s: PassState, inst: Instance): Done {
  const nowMs = s.ctx.now().getTime();
  const since = s.status.stoppedSince ? Date.parse(s.status.stoppedSince) : Number.NaN;
  const grace = s.ctx.stoppedGraceMs ?? STOPPED_GRACE_MS;
  if (Number.isFinite(since) && nowMs - since >= grace) {
    delete s.status.stoppedSince;
    return replaceInstance(
      s,
      'InstanceStopped',
      `instance ${inst.id} has been Stopped for ${formatWindow(nowMs - since)} (grace ${formatWindow(grace)}); replacing it`,
    );
  }
  const start = Number.isFinite(since) ? since : nowMs;
  if (!Number.isFinite(since)) {
    s.status.stoppedSince = rfc3339(s.ctx.now());
    event(
      s,
      'Warning',
      'InstanceStopped',
      `instance ${inst.id} is Stopped; replacing it unless it runs again within ${formatWindow(grace)}`,
    );
  }
  const message = `instance ${inst.id} is Stopped since ${rfc3339(new Date(start))}; replaced if it does not run again within ${formatWindow(grace)}`;
  s.status.phase = 'Provisioning';
  s.status.message = message;
  s.status.healthy = false;
  condition(s, ConditionType.Provisioned, 'False', 'InstanceStopped', message);
  const remaining = start + grace - nowMs;
  return done({ type: 'after', ms: Math.max(0, Math.min(remaining, 10 * s.cfg.pollIntervalMs)) });
}

/** Replaces an instance still not usable past its readiness window; undefined while within it. */
export function readinessOverdue(
  s: PassState,
  handle: ProviderHandle,
  inst: Instance,
  waiting: string,
): Done | undefined {
  const nowMs = s.ctx.now().getTime();
  // Our own record first (the operator's clock); the backend's time for an instance created
  // before the field existed.
  const recorded = Date.parse(s.status.instanceCreatedTime ?? '');
  const created = Number.isFinite(recorded) ? recorded : (inst.createdAt?.getTime() ?? Number.NaN);
  if (!Number.isFinite(created)) {
    // No creation time known (an instance from before this field): its window starts now.
    s.status.instanceCreatedTime = rfc3339(s.ctx.now());
    return undefined;
  }
  const window = s.ctx.readinessWindowMs ?? readinessWindowMs(handle.provider.profile);
  if (nowMs - created < window) return undefined;
  const message = `instance ${inst.id} is not usable ${formatWindow(nowMs - created)} after its create (${waiting}); the readiness window of provider ${handle.name} is ${formatWindow(window)}, replacing it`;
  return replaceInstance(s, 'ReadinessWindowExceeded', message);
}
