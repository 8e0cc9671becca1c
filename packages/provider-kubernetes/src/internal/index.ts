// Everything beside the public surface: the building blocks the package's own tests, the
// conformance harness and a curious reader use. Not covered by semver: names here may move.
export { apiErrorFromBody, KubeApiError, type KubeStatusFields } from '../api-error.js';
export type * from '../backend.js';
export { KUBE_CALLS } from '../backend.js';
export { CHECK_TARGET, check, KUBE_CHECK_REASON_INVALID_CONFIG, REQUIRED_VERBS } from '../check.js';
export {
  type ClientNodeOptions,
  createClientNodeBackend,
  type KubeFetch,
  type KubeFetchInit,
  type KubeFetchResponse,
} from '../client-node.js';
export { parseKubernetesConfig, parseQuantity } from '../config.js';
export { type ClassifyOptions, classify, isQuotaExceeded } from '../errors.js';
export { formatId, type PodRef, parseId } from '../id.js';
export { isMarked, toInstance } from '../instance.js';
export { MANAGED_SELECTOR } from '../list.js';
export { observeBackend } from '../observe.js';
export {
  buildPod,
  CONTAINER_NAME,
  PROXY_ANNOTATION,
  podNamespace,
  SQUID_CONF_ENV,
  SQUID_UID,
  ZONE_LABEL,
} from '../pod.js';
export { isCidr, SQUID_PATHS, squidConf } from '../squid-conf.js';
export { KUBERNETES_STATES, stateOf } from '../state.js';
