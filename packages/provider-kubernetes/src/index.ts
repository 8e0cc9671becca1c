export { apiErrorFromBody, KubeApiError, type KubeStatusFields } from './api-error.js';
export type * from './backend.js';
export { KUBE_CALLS } from './backend.js';
export { CHECK_TARGET, check, KUBE_CHECK_REASON_INVALID_CONFIG, REQUIRED_VERBS } from './check.js';
export {
  type ClientNodeOptions,
  createClientNodeBackend,
  type KubeFetch,
  type KubeFetchInit,
  type KubeFetchResponse,
} from './client-node.js';
export {
  KUBERNETES_DEFAULTS,
  type KubernetesConfig,
  type KubernetesConfigInput,
  kubernetesConfigSchema,
  parseKubernetesConfig,
  parseQuantity,
} from './config.js';
export { type ClassifyOptions, classify, isQuotaExceeded, KubeErrorCode } from './errors.js';
export { kubernetesProviderFactory } from './factory.js';
export { formatId, type PodRef, parseId } from './id.js';
export { isMarked, toInstance } from './instance.js';
export { MANAGED_SELECTOR } from './list.js';
export { observeBackend } from './observe.js';
export {
  buildPod,
  CONTAINER_NAME,
  PROXY_ANNOTATION,
  podNamespace,
  SQUID_CONF_ENV,
  SQUID_UID,
  ZONE_LABEL,
} from './pod.js';
export { kubernetesProfile } from './profile.js';
export {
  createKubernetesProvider,
  type KubernetesProvider,
  type KubernetesProviderOptions,
} from './provider.js';
export { isCidr, SQUID_PATHS, squidConf } from './squid-conf.js';
export { KUBERNETES_STATES, stateOf } from './state.js';
