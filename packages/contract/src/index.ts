export type { CallOptions } from './call-options.js';
export { CheckReason, type CheckResult, type SharedCheckReason } from './check-result.js';
export type {
  ConfigOf,
  ConfigSchema,
  ConfigSchemaIssue,
  ConfigSchemaResult,
} from './config-schema.js';
export { isConfigSchema } from './config-schema.js';
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
export {
  defineProviderFactory,
  isProviderFactory,
  type ProviderBundle,
  type ProviderFactory,
  type ProviderFactoryContext,
  type ProviderTypeSource,
} from './factory.js';
export type { Instance, InstanceEgress, SecondaryResource } from './instance.js';
export { instanceName, isInstanceName } from './instance-name.js';
export { INSTANCE_STATES, InstanceState, isInstanceState } from './instance-state.js';
export type { LogFields, Logger, LogLevel } from './logger.js';
export {
  CREATED_AT_LABEL,
  INSTALLATION_LABEL,
  INSTANCE_NAME_PREFIX,
  MANAGED_LABEL,
  MANAGED_VALUE,
  UID_LABEL,
} from './marks.js';
export { PROFILE_ANSWERS, PROFILE_AXES, type ProviderProfile, profileProblems } from './profile.js';
export type { Checker, Provider } from './provider.js';
export { Secret } from './secret.js';
