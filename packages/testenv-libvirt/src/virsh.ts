import { runChecked } from './exec.js';

export const SYSTEM_URI = 'qemu:///system' as const;

/** Runs `virsh -c qemu:///system ...args` and returns stdout; throws with stderr on failure. */
export function virsh(args: readonly string[], opts: { signal?: AbortSignal } = {}): Promise<string> {
  return runChecked('virsh', ['-c', SYSTEM_URI, ...args], { signal: opts.signal, timeoutMs: 120_000 });
}
