// The test kit other packages can reuse: the fault-injecting relay, the control-plane helpers
// and the conformance harness over a real API server. Nothing here starts a control plane.
export {
  CONFORMANCE_NAMESPACE,
  ConformanceEnv,
  createKubeHarness,
  KUBE_STATE_TABLE,
} from './conformance-harness.js';
export {
  CONTROL_PLANE_BUDGET_MS,
  type ControlPlane,
  deleteQuota,
  forceDeletePod,
  type KubeResponse,
  type KubeUser,
  must,
  relayKubeconfig,
  setPodQuota,
} from './kube.js';
export {
  KubeRelay,
  type RelayCall,
  type RelayFault,
  type RelayGate,
  type RelayStep,
  stepOf,
} from './relay.js';
