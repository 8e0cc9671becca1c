import type { KvmFlavour } from '@egress-proxies/kvm-common';
import { KVM2_METADATA_NAMESPACE, KVM2_METADATA_PREFIX } from './marks.js';
import { kvm2Profile } from './profile.js';

/** kvm2: its own namespace, the guest agent first. */
export const kvm2Flavour: KvmFlavour = {
  type: 'kvm2',
  namespace: KVM2_METADATA_NAMESPACE,
  prefix: KVM2_METADATA_PREFIX,
  spanPrefix: 'kvm2',
  addressOrder: ['agent', 'arp', 'lease'],
  profile: kvm2Profile,
};
