export {
  KVM_DEFAULTS,
  type KvmConfig,
  type KvmConfigInput,
  type KvmHost,
  type KvmImage,
  type KvmMachineType,
  kvmConfigSchema,
} from './config.js';
export { KvmCheckReason, KvmErrorCode } from './errors.js';
export { kvmProviderFactory } from './factory.js';
export { kvmProfile } from './profile.js';
export { createKvmProvider, type KvmProvider, type KvmProviderOptions } from './provider.js';
