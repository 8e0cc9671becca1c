export {
  type ControlPlaneBinaries,
  ensureControlPlaneBinaries,
  ensureGoTool,
  runBuildScript,
} from './binaries.js';
export {
  type ClusterImage,
  type KubeCluster,
  NODE_NAME,
  type StartKubeClusterOptions,
  startKubeCluster,
} from './cluster.js';
export { type Collector, collectorConfig, startCollector } from './collector.js';
export {
  type KubeControlPlane,
  type KubeResponse,
  type KubeUser,
  type PolicyRule,
  startKubeControlPlane,
} from './control-plane.js';
export { CLUSTER_CIDR, PAUSE_IMAGE, POD_CIDR, SERVICE_CIDR } from './node-config.js';
export { descendantsOf, findSpanChain, parseOtlpJsonLines, type StoredSpan } from './otlp-spans.js';
export { freePort } from './process.js';
export { removeStaleNodes } from './stale.js';
export { kubeToolEnv } from './tool-env.js';
