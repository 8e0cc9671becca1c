import { existsSync } from 'node:fs';
import { TestEnvVmError } from './errors.js';

export interface UefiFirmware {
  /** The firmware code, mapped read-only. */
  code: string;
  /** The variable store template; every VM gets its own copy. */
  vars: string;
}

// Debian's ovmf package: the 4 MiB build first (the 2 MiB one is kept for old machine types).
const CANDIDATES: UefiFirmware[] = [
  { code: '/usr/share/OVMF/OVMF_CODE_4M.fd', vars: '/usr/share/OVMF/OVMF_VARS_4M.fd' },
  { code: '/usr/share/OVMF/OVMF_CODE.fd', vars: '/usr/share/OVMF/OVMF_VARS.fd' },
];

/** The first OVMF code/vars pair installed on this host (no Secure Boot: the image is unsigned). */
export function findUefiFirmware(): UefiFirmware | undefined {
  return CANDIDATES.find((c) => existsSync(c.code) && existsSync(c.vars));
}

export function requireUefiFirmware(): UefiFirmware {
  const found = findUefiFirmware();
  if (!found) {
    throw new TestEnvVmError(
      'PREREQUISITE_MISSING',
      `no OVMF firmware found (looked for ${CANDIDATES.map((c) => c.code).join(', ')}); install the ovmf package`,
    );
  }
  return found;
}
