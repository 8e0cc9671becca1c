import {
  KVM_DEFAULTS,
  type KvmConfig,
  type KvmConfigInput,
  type KvmHost,
  type KvmImage,
  type KvmMachineType,
  kvmConfigSchema,
} from '@egress-proxies/kvm-common';

// kvm and kvm2 share one block shape (kvm-common owns it), so an entry moves between the two
// types by renaming its type and block key.

/** The `kvm2:` block's schema: validates a block and fills its defaults. */
export const kvm2ConfigSchema = kvmConfigSchema;
/** The defaults of the `kvm2:` block. */
export const KVM2_DEFAULTS = KVM_DEFAULTS;
/** A validated `kvm2:` block, defaults filled. */
export type Kvm2Config = KvmConfig;
/** A `kvm2:` block as written in a config (defaulted fields optional). */
export type Kvm2ConfigInput = KvmConfigInput;
export type Kvm2Host = KvmHost;
export type Kvm2Image = KvmImage;
export type Kvm2MachineType = KvmMachineType;
