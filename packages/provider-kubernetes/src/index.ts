export {
  KUBERNETES_DEFAULTS,
  type KubernetesConfig,
  type KubernetesConfigInput,
  kubernetesConfigSchema,
} from './config.js';
export { KubernetesErrorCode } from './errors.js';
export { kubernetesProviderFactory } from './factory.js';
export { kubernetesProfile } from './profile.js';
export {
  createKubernetesProvider,
  type KubernetesProvider,
  type KubernetesProviderOptions,
} from './provider.js';
