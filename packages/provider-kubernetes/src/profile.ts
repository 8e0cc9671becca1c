import type { ProviderProfile } from '@egress-proxies/contract';
import { KUBERNETES_STATES } from './state.js';

/** How this provider meets the contract, axis by axis (the README's profile table says why). */
export const kubernetesProfile: ProviderProfile = {
  readiness: 'immediate',
  createReturn: 'submit',
  deleteReturn: 'returns-early',
  ipSource: 'assigned-at-create',
  gcMark: 'native-labels',
  createdAt: 'backend-timestamp',
  listPartial: 'not-applicable',
  listSkipsUnreadable: true,
  quota: 'detected',
  notFound: 'status-404',
  primaryKey: 'name-is-key',
  provisioningState: 'native',
  asyncOps: 'none',
  secondaryResources: 'none',
  credentials: 'workload-identity',
  clientKind: 'vendor-sdk',
  timeouts: 'ctx-only',
  logging: 'tiered',
  childSpans: 'span-decorator',
  backendTest: 'real-backend-in-ci',
  states: KUBERNETES_STATES,
  notes: {
    readiness: 'a Pod is scheduled and started by the kubelet within seconds; Running needs a podIP',
    ipSource: 'status.podIP, reported only while the Pod is Running: reachable from inside the cluster only',
    listPartial:
      'one paginated list call (all namespaces, or the fixed namespace); a failed page fails the list',
    quota:
      'a 403 Forbidden whose Status message says "exceeded quota" (the ResourceQuota admission plugin); other 403s are Permanent',
    credentials: 'a kubeconfig or the in-cluster service account, through @kubernetes/client-node',
    timeouts: 'only the caller signal, which cancels the HTTP request itself',
    secondaryResources: 'one Pod per proxy; the Squid config travels in an environment variable of the Pod',
    backendTest:
      'a real kube-apiserver and etcd in the test suite (no kubelet: Pod status is set by the test)',
  },
};
