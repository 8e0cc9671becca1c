import { existsSync, unlinkSync, writeFileSync } from 'node:fs';
import { TestEnvError } from './errors.js';
import { run, runChecked } from './exec.js';
import { withFileLock } from './file-lock.js';
import { lockPath } from './paths.js';

/** The Debian packages a real libvirt host with SSH access needs. */
export const REQUIRED_PACKAGES: readonly string[] = [
  'libvirt-daemon-system',
  'libvirt-clients',
  'qemu-system-x86',
  'qemu-utils',
  'ovmf',
  'openssh-server',
];

const POLICY_RC_D = '/usr/sbin/policy-rc.d';

/** The subset of `names` that dpkg does not report as fully installed. */
export async function missingPackages(names: readonly string[], signal?: AbortSignal): Promise<string[]> {
  for (const n of names) {
    if (!/^[a-z0-9][a-z0-9+.-]+$/.test(n)) {
      throw new TestEnvError('INVALID_ARGUMENT', `not a Debian package name: ${JSON.stringify(n)}`);
    }
  }
  // One dpkg-query for all names; unknown packages go to stderr and simply do not appear.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's format syntax, not a JS template
  const format = '-f=${Package} ${db:Status-Abbrev}\\n';
  const r = await run('dpkg-query', ['-W', format, ...names], { signal });
  const installed = new Set<string>();
  for (const line of r.stdout.split('\n')) {
    const [pkg, status] = line.trim().split(/\s+/);
    if (pkg && status === 'ii') installed.add(pkg.split(':')[0]!);
  }
  return names.filter((n) => !installed.has(n));
}

/**
 * Installs whatever of `names` is missing. The common case (all present) costs one dpkg-query.
 * While apt runs, a policy-rc.d that exits 101 stops maintainer scripts from starting daemons:
 * this machine has no init system to manage them, and ensureLibvirtd starts them itself.
 */
export async function ensurePackages(
  names: readonly string[] = REQUIRED_PACKAGES,
  opts: { signal?: AbortSignal } = {},
): Promise<{ installed: string[] }> {
  if ((await missingPackages(names, opts.signal)).length === 0) return { installed: [] };
  return withFileLock(lockPath('apt'), { timeoutMs: 900_000, signal: opts.signal }, async () => {
    const missing = await missingPackages(names, opts.signal);
    if (missing.length === 0) return { installed: [] };
    const ownPolicy = !existsSync(POLICY_RC_D);
    if (ownPolicy) writeFileSync(POLICY_RC_D, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    try {
      await runChecked('apt-get', ['update'], { signal: opts.signal, env });
      await runChecked('apt-get', ['install', '-y', '-q', ...missing], { signal: opts.signal, env });
    } catch (e) {
      if (opts.signal?.aborted) throw e;
      throw new TestEnvError(
        'PACKAGE_INSTALL_FAILED',
        `installing ${missing.join(' ')} failed: ${(e as Error).message}`,
        { cause: e },
      );
    } finally {
      if (ownPolicy) unlinkSync(POLICY_RC_D);
    }
    const still = await missingPackages(missing, opts.signal);
    if (still.length > 0) {
      throw new TestEnvError(
        'PACKAGE_INSTALL_FAILED',
        `still not installed after apt-get: ${still.join(' ')}`,
      );
    }
    return { installed: missing };
  });
}
