import { InstanceState } from '@egress-proxies/contract';
import type { PodView } from './backend.js';

/**
 * The state table, from the Pod's phase, address and deletion timestamp:
 *
 * | deletionTimestamp | phase                        | podIP | state        |
 * |-------------------|------------------------------|-------|--------------|
 * | set               | any                          | any   | Terminated   |
 * | unset             | Pending (or none yet)        | any   | Provisioning |
 * | unset             | Running                      | empty | Provisioning |
 * | unset             | Running                      | set   | Running      |
 * | unset             | Succeeded, Failed, Unknown   | any   | Terminated   |
 *
 * A Pod being deleted is Terminated, never Running: it is going away and will not come back.
 * An unrecognised phase is read as Provisioning, so a newer server never makes us report Running
 * without cause or replace a Pod that may still come up.
 */
export function stateOf(pod: Pick<PodView, 'phase' | 'podIP' | 'deletionTimestamp'>): InstanceState {
  if (pod.deletionTimestamp !== undefined) return InstanceState.Terminated;
  switch (pod.phase) {
    case 'Running':
      return pod.podIP ? InstanceState.Running : InstanceState.Provisioning;
    case 'Succeeded':
    case 'Failed':
    case 'Unknown':
      return InstanceState.Terminated;
    default:
      return InstanceState.Provisioning;
  }
}

/** The states `get` can produce. */
export const KUBERNETES_STATES: readonly InstanceState[] = [
  InstanceState.Provisioning,
  InstanceState.Running,
  InstanceState.Terminated,
];
