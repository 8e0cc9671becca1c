import {
  INSTALLATION_LABEL,
  type Instance,
  InstanceState,
  MANAGED_LABEL,
  MANAGED_VALUE,
  UID_LABEL,
} from '@egress-proxies/contract';
import type { PodView } from './backend.js';
import { formatId } from './id.js';
import { stateOf } from './state.js';

/** True when the Pod carries our managed mark. */
export const isMarked = (pod: Pick<PodView, 'labels'>): boolean =>
  pod.labels[MANAGED_LABEL] === MANAGED_VALUE;

/** The contract's view of one of our Pods: the address only when Running. */
export function toInstance(pod: PodView): Instance {
  const state = stateOf(pod);
  const inst: Instance = {
    id: formatId(pod),
    uid: pod.labels[UID_LABEL] ?? '',
    state,
  };
  if (state === InstanceState.Running && pod.podIP) inst.ip = pod.podIP;
  if (pod.createdAt) inst.createdAt = pod.createdAt;
  const installation = pod.labels[INSTALLATION_LABEL];
  if (installation) inst.installation = installation;
  return inst;
}
