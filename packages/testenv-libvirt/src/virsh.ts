import { runChecked } from './exec.js';

export const SYSTEM_URI = 'qemu:///system' as const;

/**
 * Runs `virsh -c <uri> ...args` (the system libvirtd unless `uri` names another) and returns
 * stdout; throws with stderr on failure.
 */
export function virsh(
  args: readonly string[],
  opts: { signal?: AbortSignal; uri?: string } = {},
): Promise<string> {
  return runChecked('virsh', ['-c', opts.uri ?? SYSTEM_URI, ...args], {
    signal: opts.signal,
    timeoutMs: 120_000,
  });
}
