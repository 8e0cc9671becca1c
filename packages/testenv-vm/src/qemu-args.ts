/** Where the guest reaches host services forwarded with `guestForwards` (inside slirp's 10.0.2.0/24). */
export const GUEST_FORWARD_ADDRESS = '10.0.2.100';

export interface QemuSpec {
  memoryMiB: number;
  cpus: number;
  firmwareCode: string;
  firmwareVars: string;
  overlay: string;
  seedIso: string;
  serialLog: string;
  agentSocket: string;
  /** Host loopback port forwarded to `guestProxyPort`. */
  hostProxyPort: number;
  guestProxyPort: number;
  /** Guest connections to GUEST_FORWARD_ADDRESS:guestPort run `command` with the connection on stdin/stdout. */
  guestForwards: { guestPort: number; command: string }[];
}

// QEMU option values are comma-separated; a literal comma is written twice.
function v(value: string): string {
  return value.replaceAll(',', ',,');
}

/**
 * The qemu-system-x86_64 command line. TCG on purpose: KVM cannot run OVMF on these hosts.
 * The NIC is user-mode networking in restricted mode, so the guest can reach nothing but the
 * forwards listed here, and its proxy port is published on host loopback only.
 */
export function qemuArgs(spec: QemuSpec): string[] {
  const netdev = [
    'user',
    'id=net0',
    'restrict=on',
    `hostfwd=tcp:127.0.0.1:${spec.hostProxyPort}-:${spec.guestProxyPort}`,
    ...spec.guestForwards.map(
      (f) => `guestfwd=tcp:${GUEST_FORWARD_ADDRESS}:${f.guestPort}-cmd:${v(f.command)}`,
    ),
  ].join(',');
  return [
    '-nodefaults',
    '-no-user-config',
    '-display',
    'none',
    '-machine',
    'q35,accel=tcg',
    '-cpu',
    'qemu64',
    '-smp',
    String(spec.cpus),
    '-m',
    String(spec.memoryMiB),
    '-drive',
    `if=pflash,format=raw,unit=0,readonly=on,file=${v(spec.firmwareCode)}`,
    '-drive',
    `if=pflash,format=raw,unit=1,file=${v(spec.firmwareVars)}`,
    '-drive',
    `if=none,id=disk0,format=qcow2,file=${v(spec.overlay)}`,
    '-device',
    'virtio-blk-pci,drive=disk0,bootindex=1',
    '-drive',
    `if=none,id=seed0,format=raw,media=cdrom,readonly=on,file=${v(spec.seedIso)}`,
    '-device',
    'ide-cd,drive=seed0,bus=ide.0',
    '-netdev',
    netdev,
    '-device',
    'virtio-net-pci,netdev=net0',
    '-chardev',
    `socket,id=qga0,path=${v(spec.agentSocket)},server=on,wait=off`,
    '-device',
    'virtio-serial-pci',
    '-device',
    'virtserialport,chardev=qga0,name=org.qemu.guest_agent.0',
    '-device',
    'virtio-rng-pci',
    '-serial',
    `file:${spec.serialLog}`,
  ];
}
