export {
  KVM2_DEFAULTS,
  type Kvm2Config,
  type Kvm2ConfigInput,
  type Kvm2Host,
  type Kvm2Image,
  type Kvm2MachineType,
  kvm2ConfigSchema,
} from './config.js';
export { Kvm2CheckReason, Kvm2ErrorCode } from './errors.js';
export { kvm2ProviderFactory } from './factory.js';
export { kvm2Profile } from './profile.js';
export { createKvm2Provider, type Kvm2Provider, type Kvm2ProviderOptions } from './provider.js';
