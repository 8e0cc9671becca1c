import { kvmFamilyProfile } from '@egress-proxies/kvm-common';

/** How kvm2 meets the contract, axis by axis (the README explains each answer). */
export const kvm2Profile = kvmFamilyProfile({
  ipSource: 'guest agent, then ARP, then DHCP leases of libvirt-managed networks; first routable IPv4',
  gcMark: 'an <instance> element in the kvm2 metadata namespace: managed, uid, createdAt, installation',
  childSpans: 'kvm2.<Method> per RPC, kvm2.dial, kvm2.download',
});
