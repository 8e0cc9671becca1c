/**
 * How the kvm and kvm2 providers mark a domain as theirs: a libvirt `<metadata>` element
 * `<instance managed uid createdAt installation>` in each type's own namespace (docs/marks.md).
 */

/** kvm2: the same URI as the Go kvm2 provider, so its domains are recognised. */
export const KVM2_METADATA_NAMESPACE =
  'https://gitea.home.hrajfrisbee.cz/kacerr/egress-proxies-operator/kvm2';
export const KVM2_METADATA_PREFIX = 'kvm2';
/** kvm: its own namespace, so a kvm and a kvm2 entry can share a host without seeing each other's domains. */
export const KVM_METADATA_NAMESPACE = 'https://egress-proxies.dev/xmlns/kvm/v1';
export const KVM_METADATA_PREFIX = 'eproxy';
export const METADATA_ELEMENT = 'instance';

/** The attributes of the `<instance>` metadata element. */
export const METADATA_ATTRIBUTES = {
  managed: 'managed',
  uid: 'uid',
  createdAt: 'createdAt',
  installation: 'installation',
  /** The egress addresses allocated from the host's egress plan, and the NIC's pinned MAC. */
  egressIPv4: 'egressIPv4',
  egressIPv6: 'egressIPv6',
  mac: 'mac',
} as const;
