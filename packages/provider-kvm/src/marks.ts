// How kvm marks its domains: an <instance> element in its own metadata namespace (docs/marks.md).
export {
  KVM_METADATA_NAMESPACE,
  KVM_METADATA_PREFIX,
  METADATA_ATTRIBUTES,
  METADATA_ELEMENT,
} from '@egress-proxies/kvm-common';
