import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { TestEnvVmError } from './errors.js';
import { findUefiFirmware } from './firmware.js';

function onPath(cmd: string): boolean {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    try {
      accessSync(join(dir, cmd), constants.X_OK);
      return true;
    } catch {
      // keep looking
    }
  }
  return false;
}

/** Debian packages the boot harness needs and are not installed yet. */
export function missingHostPackages(): string[] {
  const missing: string[] = [];
  if (!onPath('qemu-system-x86_64')) missing.push('qemu-system-x86');
  if (!onPath('qemu-img')) missing.push('qemu-utils');
  if (!findUefiFirmware()) missing.push('ovmf');
  return missing;
}

function apt(args: string[], signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('apt-get', ['-o', 'DPkg::Lock::Timeout=600', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      signal,
    });
    let tail = '';
    const keep = (d: Buffer) => {
      tail = (tail + d.toString()).slice(-3000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (e) => reject(signal?.aborted ? signal.reason : e));
    child.on('close', (code) =>
      code === 0 ? resolve(tail) : reject(new Error(`apt-get ${args[0]} exit ${code}: ${tail}`)),
    );
  });
}

/** Installs qemu-system-x86, qemu-utils and ovmf when missing (needs root), or fails saying what is missing. */
export async function ensureHostPackages(opts: { signal?: AbortSignal } = {}): Promise<void> {
  const missing = missingHostPackages();
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new TestEnvVmError(
      'PREREQUISITE_MISSING',
      `missing host packages ${missing.join(' ')} and not root to install them`,
    );
  }
  try {
    await apt(['update', '-qq'], opts.signal);
    await apt(['install', '-y', '-qq', '--no-install-recommends', ...missing], opts.signal);
  } catch (e) {
    if (opts.signal?.aborted) throw opts.signal.reason;
    throw new TestEnvVmError(
      'PREREQUISITE_MISSING',
      `installing ${missing.join(' ')} failed: ${(e as Error).message}`,
      {
        cause: e,
      },
    );
  }
  const still = missingHostPackages();
  if (still.length > 0)
    throw new TestEnvVmError('PREREQUISITE_MISSING', `still missing after install: ${still.join(' ')}`);
}
