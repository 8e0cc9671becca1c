// kvm and kvm2 share one block shape (kvm-common owns it), so an entry moves between the two
// types by renaming its type and block key. These are the `kvm:` block's schema (it validates a
// block and fills its defaults), its defaults, and its types (`KvmConfigInput` as written in a
// config, `KvmConfig` validated).
export {
  KVM_DEFAULTS,
  type KvmConfig,
  type KvmConfigInput,
  type KvmHost,
  type KvmImage,
  type KvmMachineType,
  kvmConfigSchema,
} from '@egress-proxies/kvm-common';
