export {
  deploymentReady,
  describePods,
  getJson,
  gone,
  leaseHeldBy,
  listPods,
  mustRequest,
  type Pod,
  podHttpGet,
  runPod,
} from './cluster-helpers.js';
export { E2E_KUBE_ENV_VAR, type E2eKubeEnv, readE2eKubeEnv } from './e2e-kube-env.js';
export { qualifiedImage } from './image-names.js';
export { type KubeTools, kubeTools } from './kube-tools.js';
export { waitForProgress } from './progress.js';
export {
  KUBE_REPORT_END,
  KUBE_REPORT_START,
  type KubeTimings,
  renderKubeTimings,
  updateKubeReport,
} from './report.js';
export { NODE_PACKAGES, type RunE2eKubeOptions, runE2eKube } from './run-e2e-kube.js';
