export { abortReason, raceAbort, sleep, throwIfAborted } from './abort.js';
export type { CallOptions } from './call-options.js';
export { CheckReason, type CheckResult, type SharedCheckReason } from './check-result.js';
export { invalidConfigError, parseProviderBlock } from './config/config-error.js';
export {
  type ConfigOf,
  type ConfigSchema,
  type ConfigSchemaIssue,
  type ConfigSchemaResult,
  isConfigSchema,
} from './config/config-schema.js';
export {
  GCP_DEFAULTS,
  type GcpConfig,
  type GcpConfigInput,
  gcpConfigSchema,
} from './config/gcp.js';
export {
  KUBERNETES_DEFAULTS,
  type KubernetesConfig,
  type KubernetesConfigInput,
  kubernetesConfigSchema,
  parseQuantity,
} from './config/kubernetes.js';
export {
  KVM_DEFAULTS,
  type Kvm2Config,
  type Kvm2ConfigInput,
  type KvmConfig,
  type KvmConfigInput,
  type KvmHost,
  type KvmImage,
  type KvmMachineType,
  kvm2ConfigSchema,
  kvmConfigSchema,
  kvmHostSchema,
  kvmImageSchema,
  kvmMachineTypeSchema,
} from './config/kvm.js';
export {
  LOCAL_DEFAULTS,
  type LocalConfig,
  type LocalConfigInput,
  localConfigSchema,
} from './config/local.js';
export { type ConfigIssue, ProvidersConfigError } from './config/providers-config-error.js';
export { loadProvidersConfigFile } from './config/providers-config-file.js';
export {
  type ExternalProviderEntry,
  isEntryOf,
  isProviderType,
  type LoadProvidersConfigOptions,
  loadProvidersConfig,
  PROVIDER_NAME_RE,
  PROVIDER_TYPES,
  type ProviderConfigs,
  type ProviderEntry,
  type ProviderEntryOf,
  type ProviderType,
  type ProviderTypeSource,
  parseProviderConfig,
  providerConfigSchemas,
  validateProviderBlock,
} from './config/providers-file.js';
export {
  PROXMOX_DEFAULTS,
  PROXMOX_VMID_MAX,
  PROXMOX_VMID_MIN,
  type ProxmoxConfig,
  type ProxmoxConfigInput,
  type ProxmoxMachineType,
  proxmoxConfigSchema,
  proxmoxMachineTypeSchema,
} from './config/proxmox.js';
export type { CreateRequest, Placement } from './create-request.js';
export {
  ErrorCode,
  ErrorKind,
  isAbortError,
  isNotFound,
  isPermanent,
  isQuotaExceeded,
  isTransient,
  notFoundError,
  ProviderError,
  type ProviderErrorOptions,
  permanentError,
  quotaExceededError,
  transientError,
  wrapError,
} from './errors.js';
export type { Instance, SecondaryResource } from './instance.js';
export { instanceName, isInstanceName } from './instance-name.js';
export { INSTANCE_STATES, InstanceState, isInstanceState } from './instance-state.js';
export {
  createLogger,
  type LogFields,
  type Logger,
  type LogLevel,
  type LogLine,
  loggerOf,
  type PinoLevel,
  type PinoLike,
  pinoLogger,
  silentLogger,
} from './logger.js';
export * from './marks.js';
export { PROFILE_ANSWERS, PROFILE_AXES, type ProviderProfile, profileProblems } from './profile.js';
export type { Checker, Provider } from './provider.js';
export {
  type CreatedProvider,
  defineProviderFactory,
  isProviderFactory,
  type ProviderBundle,
  type ProviderFactory,
  type ProviderFactoryContext,
  ProviderRegistry,
  type ProviderRegistryContext,
} from './registry.js';
export { Secret } from './secret.js';
export { traceFields, withSpan } from './tracing.js';
