export {
  type BackendAuth,
  type BackendCallRecord,
  DOMAIN_STATES,
  type DomainInfo,
  type DomainState,
  HOST_CONDITIONS,
  type HostCondition,
  type PoolInfo,
  ReferenceBackend,
  type ReferenceBackendHost,
  type ReferenceBackendOptions,
  type VolumeInfo,
  type VolumeKind,
} from './backend.js';
export { ReferenceChecker } from './checker.js';
export type {
  ReferenceConfig,
  ReferenceConfigInput,
  ReferenceEgressPlan,
  ReferenceHostConfig,
  ReferenceImage,
  ReferenceMachineType,
  ResolvedReferenceConfig,
} from './config.js';
export { REFERENCE_DEFAULTS, referenceConfigSchema, resolveReferenceConfig } from './config.js';
export {
  classifyBackendError,
  type ReferenceBackendCode,
  ReferenceBackendError,
  ReferenceCheckReason,
} from './errors.js';
export type { ReferenceProviderOptions } from './factory.js';
export {
  createReference,
  createReferenceProvider,
  type ReferenceProviderWithChecker,
  referenceProviderFactory,
} from './factory.js';
export {
  createReferenceHarness,
  REFERENCE_EGRESS_PLAN,
  REFERENCE_HOSTS,
  REFERENCE_IPV4_EGRESS_PLAN,
  REFERENCE_ROOMY_EGRESS_PLAN,
  REFERENCE_STATE_TABLE,
  type ReferenceHarnessOptions,
  referenceConfig,
  referenceControl,
} from './harness.js';
export { formatId, parseId } from './id.js';
export { formatMark, MARK_NAMESPACE, type Mark, type MarkReading, readMark } from './mark.js';
export { referenceProfile } from './profile.js';
export {
  type OpContext,
  type Ownership,
  REFERENCE_TYPE,
  ReferenceProvider,
  type ReferenceProviderOptions as ReferenceProviderClassOptions,
} from './provider.js';
export { mapState } from './state.js';
