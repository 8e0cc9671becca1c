import { escapeXml } from './xml-text.js';

export interface DomainSpec {
  name: string;
  domainType: 'kvm' | 'qemu';
  vcpus: number;
  memoryMiB: number;
  firmware: 'uefi' | 'bios';
  /** Resolved file paths: AppArmor only writes rules for file disks with a source path. */
  overlayPath: string;
  seedPath: string;
  bridge: string;
  /** The NIC's MAC, pinned when a network config in the seed matches on it; libvirt picks one otherwise. */
  mac?: string;
  /** The metadata element (from `metadataElement`). */
  metadata: string;
}

/**
 * The domain: q35, the overlay on virtio, the seed on a SATA cdrom, one virtio NIC on the
 * bridge, a serial console, the guest-agent channel, a virtio RNG, no graphics. UEFI with secure
 * boot off unless the image says BIOS. `qemu` domains get a named CPU model, since
 * host-passthrough needs KVM.
 */
export function domainXml(s: DomainSpec): string {
  const os =
    s.firmware === 'uefi'
      ? `  <os firmware="efi">
    <type arch="x86_64" machine="q35">hvm</type>
    <firmware>
      <feature enabled="no" name="secure-boot"/>
      <feature enabled="no" name="enrolled-keys"/>
    </firmware>
    <boot dev="hd"/>
  </os>`
      : `  <os>
    <type arch="x86_64" machine="q35">hvm</type>
    <boot dev="hd"/>
  </os>`;
  const cpu =
    s.domainType === 'kvm'
      ? '  <cpu mode="host-passthrough"/>'
      : '  <cpu mode="custom" match="exact"><model fallback="allow">qemu64</model></cpu>';
  return `<domain type="${s.domainType}">
  <name>${escapeXml(s.name)}</name>
  <metadata>${s.metadata}</metadata>
  <memory unit="MiB">${s.memoryMiB}</memory>
  <vcpu>${s.vcpus}</vcpu>
${os}
  <features><acpi/><apic/></features>
${cpu}
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>restart</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <disk type="file" device="disk">
      <driver name="qemu" type="qcow2"/>
      <source file="${escapeXml(s.overlayPath)}"/>
      <target dev="vda" bus="virtio"/>
    </disk>
    <disk type="file" device="cdrom">
      <driver name="qemu" type="raw"/>
      <source file="${escapeXml(s.seedPath)}"/>
      <target dev="sda" bus="sata"/>
      <readonly/>
    </disk>
    <interface type="bridge">
      <source bridge="${escapeXml(s.bridge)}"/>
${s.mac ? `      <mac address="${escapeXml(s.mac)}"/>\n` : ''}      <model type="virtio"/>
    </interface>
    <serial type="pty"><target port="0"/></serial>
    <console type="pty"><target type="serial" port="0"/></console>
    <channel type="unix"><target type="virtio" name="org.qemu.guest_agent.0"/></channel>
    <rng model="virtio"><backend model="random">/dev/urandom</backend></rng>
  </devices>
</domain>
`;
}
