import type { ProxySpec } from '../../api/proxy.js';
import { ConditionType } from './conditions.js';
import { condition, type PassState } from './pass-state.js';
import { probeProxy } from './probe-step.js';
import { removeStale } from './replace-stale.js';
import { done, next, type Step, type StepOutcome } from './step-outcome.js';

/** A pass over an External Proxy: an address someone else runs, only probed. */
export interface ExternalState extends PassState {
  readonly spec: ProxySpec;
  /** An External Proxy owns no instance, so a finalizer left from Managed days is removed. */
  readonly hasFinalizer: boolean;
}

/** A Proxy switched from Managed: its instance goes first. */
export function dropManagedInstance(
  s: ExternalState,
): StepOutcome<ExternalState> | Promise<StepOutcome<ExternalState>> {
  s.status.observedGeneration = s.generation;
  delete s.status.failure;
  if (!s.status.providerID) return next(s);
  return removeStale(s, s.status.instanceProvider ?? '', 'Replacing');
}

export function recordExternalAddress(s: ExternalState): StepOutcome<ExternalState> {
  const address = s.spec.address!;
  const i = address.lastIndexOf(':');
  const host = address.slice(0, i).replace(/^\[(.*)\]$/, '$1');
  const port = Number(address.slice(i + 1));
  s.status.ip = host;
  condition(s, ConditionType.Provisioned, 'True', 'External', `external proxy ${address}`);
  if (s.status.phase !== 'Ready') s.status.phase = 'Running';
  return next({ ...s, endpoint: { host, port } });
}

export const probeExternal: Step<ExternalState> = async (s) => {
  const { host, port } = s.endpoint!;
  const probed = await probeProxy(s, s.spec, host, port);
  return s.hasFinalizer ? done(probed.end.requeue, probed.end.outcome, 'remove') : probed;
};

export const EXTERNAL_STEPS: readonly Step<ExternalState>[] = [
  dropManagedInstance,
  recordExternalAddress,
  probeExternal,
];
