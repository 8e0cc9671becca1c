export {
  KVM_DEFAULTS,
  type KvmConfig,
  type KvmConfigInput,
  type KvmHost,
  type KvmImage,
  type KvmMachineType,
  kvmConfigSchema,
} from './config.js';
export { classify, KvmCheckReason, KvmErrorCode } from './errors.js';
export { kvmProviderFactory } from './factory.js';
export { kvmFlavour } from './flavour.js';
export {
  KVM_METADATA_NAMESPACE,
  KVM_METADATA_PREFIX,
  METADATA_ATTRIBUTES,
  METADATA_ELEMENT,
} from './marks.js';
export { kvmProfile } from './profile.js';
export { createKvmProvider, type KvmProvider, type KvmProviderOptions } from './provider.js';
