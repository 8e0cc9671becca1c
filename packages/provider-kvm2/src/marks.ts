// How kvm2 marks its domains: an <instance> element in the Go kvm2 provider's namespace (docs/marks.md).
export {
  KVM2_METADATA_NAMESPACE,
  KVM2_METADATA_PREFIX,
  METADATA_ATTRIBUTES,
  METADATA_ELEMENT,
} from '@egress-proxies/kvm-common';
