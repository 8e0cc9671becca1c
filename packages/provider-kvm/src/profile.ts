import { kvmFamilyProfile } from '@egress-proxies/kvm-common';

/** How kvm meets the contract, axis by axis (the README explains each answer). */
export const kvmProfile = kvmFamilyProfile({
  ipSource: 'ARP, then the guest agent, then DHCP leases of libvirt-managed networks; first routable IPv4',
  gcMark:
    'an <instance> element in the kvm metadata namespace (distinct from kvm2): managed, uid, createdAt, installation',
  childSpans: 'kvm.<Method> per RPC, kvm.dial, kvm.download',
});
