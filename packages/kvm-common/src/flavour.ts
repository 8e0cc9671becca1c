import type { ProviderProfile } from '@egress-proxies/contract';

/** Where a domain's address is looked up: the guest agent, the host's ARP table, or DHCP leases of libvirt-managed networks. */
export type AddressSource = 'agent' | 'arp' | 'lease';

/**
 * What makes the kvm and kvm2 providers different. Everything else (the seam, the connection
 * table, the image cache and the four operations) is shared and reads these few answers.
 */
export interface KvmFlavour {
  /** The provider type and config block name: `kvm` or `kvm2`. */
  readonly type: 'kvm' | 'kvm2';
  /** The metadata namespace URI; each type only sees domains marked in its own. */
  readonly namespace: string;
  /** The XML prefix bound to `namespace` when the element is written. */
  readonly prefix: string;
  /** Prefix of span names (`<prefix>.<Method>`, `<prefix>.dial`, `<prefix>.download`) and span attributes. */
  readonly spanPrefix: string;
  /** Address sources in the order they are asked. */
  readonly addressOrder: readonly AddressSource[];
  readonly profile: ProviderProfile;
}
