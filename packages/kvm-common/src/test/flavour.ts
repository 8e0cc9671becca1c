import type { KvmFlavour } from '../flavour.js';
import { KVM_METADATA_NAMESPACE, KVM2_METADATA_NAMESPACE } from '../marks.js';
import { kvmFamilyProfile } from '../profile.js';

/** A kvm2-like flavour for the shared machinery's own tests. */
export const testFlavour: KvmFlavour = {
  type: 'kvm2',
  namespace: KVM2_METADATA_NAMESPACE,
  prefix: 'kvm2',
  spanPrefix: 'kvm2',
  addressOrder: ['agent', 'arp', 'lease'],
  profile: kvmFamilyProfile(),
};

/** A kvm-like flavour: another namespace, ARP first. */
export const otherFlavour: KvmFlavour = {
  type: 'kvm',
  namespace: KVM_METADATA_NAMESPACE,
  prefix: 'eproxy',
  spanPrefix: 'kvm',
  addressOrder: ['arp', 'agent', 'lease'],
  profile: kvmFamilyProfile(),
};
