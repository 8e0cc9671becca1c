import type { EgressAllocation } from './plan.js';

/**
 * A locally administered MAC for an instance, derived from its name: the same name always gets
 * the same MAC, so the network config in the seed and the NIC in the machine definition match
 * without storing anything else. The `52:54:00` prefix is the one libvirt and QEMU use for
 * their own generated MACs. A MAC in `taken` (another instance's) moves to the next candidate.
 */
export function macAddressFor(name: string, taken: ReadonlySet<string> = new Set()): string {
  const { createHash } = process.getBuiltinModule('node:crypto');
  const lower = new Set([...taken].map((m) => m.toLowerCase()));
  for (let attempt = 0; ; attempt += 1) {
    const digest = createHash('sha256')
      .update(attempt === 0 ? name : `${name}\u0000${attempt}`)
      .digest();
    const mac = ['52', '54', '00', ...[0, 1, 2].map((i) => digest[i]!.toString(16).padStart(2, '0'))].join(
      ':',
    );
    if (!lower.has(mac)) return mac;
  }
}

/** The interface name the config gives the planned NIC (matched by MAC, renamed to this). */
export const PLANNED_INTERFACE = 'eth0';

/**
 * The cloud-init network config (version 2, the netplan shape) that puts an allocation on the
 * NIC with `mac`: the static addresses, a default gateway per planned family, and the plan's DNS
 * servers. The gateways are `gateway4`/`gateway6`, not `routes`: cloud-init's ifupdown renderer
 * (Debian's cloud images, and ours) writes `routes` as `post-up route add ... || true`, which
 * silently does nothing without net-tools and turns `::/0` into `::/64`, so a booted guest had
 * its planned addresses and no way out; a gateway becomes ifupdown's own `gateway` line, and
 * netplan and networkd read it too. A family the plan does not cover keeps DHCP for IPv4 (so the instance
 * stays reachable on the LAN) and router advertisements for IPv6; a planned IPv6 turns router
 * advertisements off, or SLAAC would add a second address the kernel might leave from.
 * Written as JSON, which every YAML reader (cloud-init's included) reads as the same document.
 */
export function networkConfigV2(mac: string, allocation: EgressAllocation): string {
  const { ipv4, ipv6 } = allocation;
  const planned = [ipv4, ipv6].filter((a) => a !== undefined);
  const nic = {
    match: { macaddress: mac.toLowerCase() },
    'set-name': PLANNED_INTERFACE,
    dhcp4: !ipv4,
    dhcp6: false,
    ...(ipv6 ? { 'accept-ra': false } : {}),
    ...(planned.length > 0 ? { addresses: planned.map((a) => `${a.address}/${a.prefixLength}`) } : {}),
    ...(ipv4 ? { gateway4: ipv4.gateway } : {}),
    ...(ipv6 ? { gateway6: ipv6.gateway } : {}),
    ...(allocation.nameservers.length > 0 ? { nameservers: { addresses: [...allocation.nameservers] } } : {}),
  };
  return `${JSON.stringify({ version: 2, ethernets: { [PLANNED_INTERFACE]: nic } }, null, 2)}\n`;
}
