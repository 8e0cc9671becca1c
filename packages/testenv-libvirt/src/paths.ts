import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** libvirtd's read-write socket for qemu:///system on a Debian host. */
export const LIBVIRT_SOCKET = '/var/run/libvirt/libvirt-sock';
export const VIRTLOGD_SOCKET = '/var/run/libvirt/virtlogd-sock';
export const VIRTLOCKD_SOCKET = '/var/run/libvirt/virtlockd-sock';
export const LIBVIRTD_PID_FILE = '/var/run/libvirtd.pid';
export const VIRTLOGD_PID_FILE = '/var/run/virtlogd.pid';
export const VIRTLOCKD_PID_FILE = '/var/run/virtlockd.pid';
export const DAEMON_LOG_DIR = '/var/log/libvirt';

/** Lock files live in one well-known place so every test process on the machine agrees on them. */
export function lockPath(name: string): string {
  return join(tmpdir(), `egress-testenv-libvirt-${name}.lock`);
}
