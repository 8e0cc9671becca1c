import { ConditionType, getCondition } from './conditions.js';
import { condition, event, type PassState, rfc3339 } from './pass-state.js';
import { type Done, done } from './step-outcome.js';

/** What the status records about the instance: set on a create, dropped when it is gone. */

export function clearQuota(s: PassState): void {
  if (getCondition(s.status.conditions, ConditionType.QuotaExceeded)?.status === 'True') {
    condition(s, ConditionType.QuotaExceeded, 'False', 'CapacityAvailable');
  }
}

export function forgetInstance(s: PassState): void {
  const st = s.status;
  delete st.instanceCreatedTime;
  delete st.stoppedSince;
  delete st.providerID;
  delete st.instanceProvider;
  delete st.instanceGeneration;
  delete st.instanceSpecHash;
  delete st.ip;
  delete st.port;
  delete st.egressIP;
  delete st.assignedEgress;
  delete st.lastProbeTime;
  st.healthy = false;
}

export function recordCreated(s: PassState, id: string, provider: string, hash: string): void {
  clearQuota(s);
  const st = s.status;
  delete st.pendingCreate;
  st.providerID = id;
  st.instanceProvider = provider;
  st.instanceGeneration = s.generation;
  st.instanceSpecHash = hash;
  st.instanceCreatedTime = rfc3339(s.ctx.now());
  st.healthy = false;
  st.message = `created instance ${id}`;
  event(s, 'Normal', 'Created', `created instance ${id} through provider ${provider}`);
  condition(s, ConditionType.Provisioned, 'False', 'Created', `created instance ${id}`);
}

/** Marks the instance for replacement (delete, wait until gone, create) on the next pass. */
export function replaceInstance(s: PassState, reason: string, message: string): Done {
  event(s, 'Warning', reason, message);
  s.status.instanceSpecHash = '';
  s.status.phase = 'Provisioning';
  s.status.message = message;
  s.status.healthy = false;
  condition(s, ConditionType.Provisioned, 'False', reason, message);
  return done({ type: 'after', ms: 0 });
}
