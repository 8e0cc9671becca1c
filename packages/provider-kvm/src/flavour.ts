import type { KvmFlavour } from '@egress-proxies/kvm-common';
import { KVM_METADATA_NAMESPACE, KVM_METADATA_PREFIX } from './marks.js';
import { kvmProfile } from './profile.js';

/** kvm: its own namespace (so it never lists or adopts kvm2's domains), ARP first. */
export const kvmFlavour: KvmFlavour = {
  type: 'kvm',
  namespace: KVM_METADATA_NAMESPACE,
  prefix: KVM_METADATA_PREFIX,
  spanPrefix: 'kvm',
  addressOrder: ['arp', 'agent', 'lease'],
  profile: kvmProfile,
};
