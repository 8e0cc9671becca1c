import { chmodSync, chownSync, existsSync, readFileSync, statSync } from 'node:fs';

export const KVM_DEVICE = '/dev/kvm';

function groupId(name: string): number | undefined {
  try {
    for (const line of readFileSync('/etc/group', 'utf8').split('\n')) {
      const [n, , gid] = line.split(':');
      if (n === name && gid !== undefined) return Number(gid);
    }
  } catch {
    // no group database: nothing to fix against
  }
  return undefined;
}

/**
 * Gives /dev/kvm the owner and mode Debian's udev rule would (root:kvm 0660). Machines without
 * udev leave it root-only; libvirt probes QEMU as root with KVM, then finds KVM unusable for
 * its unprivileged QEMU user, calls every cached capability set outdated and re-probes QEMU on
 * every lookup (seconds per call, over a minute under load). Machines without KVM (QEMU runs
 * under TCG) have no device and nothing to fix. Returns whether it changed anything.
 */
export function fixKvmDevicePermissions(device: string = KVM_DEVICE): boolean {
  if (!existsSync(device)) return false;
  const gid = groupId('kvm');
  if (gid === undefined) return false;
  const st = statSync(device);
  if (st.gid === gid && (st.mode & 0o060) === 0o060) return false;
  chownSync(device, st.uid, gid);
  chmodSync(device, (st.mode & 0o7777) | 0o660);
  return true;
}
