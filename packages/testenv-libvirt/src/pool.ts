import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestEnvError } from './errors.js';
import { run, runChecked } from './exec.js';
import { virsh } from './virsh.js';

/** Every pool this package creates starts with this, so stale ones can be recognised. */
export const POOL_PREFIX = 'ep-test-';

export interface CreatePoolOptions {
  /** Pool name; default `ep-test-<random>`. Letters, digits, `_`, `.`, `-` only. */
  name?: string;
  /** Back the pool with a tmpfs of this many bytes, so it fills up (quota tests). */
  capacityBytes?: number;
  /** Directory in which the pool directory is created; default a fresh temp dir. */
  parentDir?: string;
  signal?: AbortSignal;
}

export interface TestPool {
  name: string;
  path: string;
  /** Set when the pool sits on a size-limited tmpfs. */
  capacityBytes?: number;
  /** Deletes every volume, destroys and undefines the pool, unmounts and removes the dir. Idempotent. */
  destroy(): Promise<void>;
}

function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/'/g, '&apos;');
}

export function poolXml(name: string, path: string): string {
  // 0711: QEMU runs as an unprivileged user and must be able to reach volume files inside.
  return `<pool type='dir'>
  <name>${xmlEscape(name)}</name>
  <target>
    <path>${xmlEscape(path)}</path>
    <permissions><mode>0711</mode></permissions>
  </target>
</pool>
`;
}

function validate(opts: CreatePoolOptions): void {
  if (opts.name !== undefined && !/^[A-Za-z0-9_.-]{1,100}$/.test(opts.name)) {
    throw new TestEnvError('INVALID_ARGUMENT', `invalid pool name ${JSON.stringify(opts.name)}`);
  }
  const cap = opts.capacityBytes;
  if (cap !== undefined && (!Number.isSafeInteger(cap) || cap < 4096)) {
    throw new TestEnvError(
      'INVALID_ARGUMENT',
      `capacityBytes must be an integer of at least 4096, got ${String(cap)}`,
    );
  }
}

/**
 * Creates, builds and starts a persistent libvirt directory pool on a fresh directory.
 * With capacityBytes, the directory is a tmpfs mount of that size (root can mount tmpfs here;
 * no loop device or image file is needed), so writes past the limit fail with ENOSPC.
 */
export async function createPool(opts: CreatePoolOptions = {}): Promise<TestPool> {
  validate(opts);
  const { signal } = opts;
  const name = opts.name ?? `${POOL_PREFIX}${randomBytes(5).toString('hex')}`;
  const ownsParent = opts.parentDir === undefined;
  const parent = opts.parentDir ?? mkdtempSync(join(tmpdir(), 'ep-pool-'));
  chmodSync(parent, 0o711);
  const path = join(parent, name);
  mkdirSync(path, { mode: 0o711 });
  let mounted = false;
  let defined = false;
  const steps: string[] = [];

  const destroy = async (): Promise<void> => {
    const problems: string[] = [];
    if (defined) {
      await deleteVolumes(name, path, problems);
      const r1 = await run('virsh', ['-c', 'qemu:///system', 'pool-destroy', name]);
      if (r1.code !== 0 && !/not active|not found|no storage pool/i.test(r1.stderr))
        problems.push(r1.stderr.trim());
      const r2 = await run('virsh', ['-c', 'qemu:///system', 'pool-undefine', name]);
      if (r2.code !== 0 && !/not found|no storage pool/i.test(r2.stderr)) problems.push(r2.stderr.trim());
      defined = false;
    }
    if (mounted) {
      const r = await run('umount', [path]);
      if (r.code !== 0) {
        // A leftover open file must not wedge teardown; detach lazily instead.
        const lazy = await run('umount', ['-l', path]);
        if (lazy.code !== 0) problems.push(`umount ${path}: ${r.stderr.trim()}`);
      }
      mounted = false;
    }
    rmSync(ownsParent ? parent : path, { recursive: true, force: true });
    if (problems.length > 0) {
      throw new TestEnvError(
        'POOL_FAILED',
        `tearing down pool ${name} left problems: ${problems.join('; ')}`,
      );
    }
  };

  try {
    if (opts.capacityBytes !== undefined) {
      steps.push('mount tmpfs');
      await runChecked(
        'mount',
        ['-t', 'tmpfs', '-o', `size=${opts.capacityBytes},mode=0711`, 'tmpfs', path],
        {
          signal,
        },
      );
      mounted = true;
    }
    const xmlFile = join(tmpdir(), `ep-pool-${randomBytes(6).toString('hex')}.xml`);
    writeFileSync(xmlFile, poolXml(name, path));
    try {
      steps.push('pool-define');
      await virsh(['pool-define', xmlFile], { signal });
      defined = true;
    } finally {
      rmSync(xmlFile, { force: true });
    }
    steps.push('pool-build');
    await virsh(['pool-build', name], { signal });
    steps.push('pool-start');
    await virsh(['pool-start', name], { signal });
  } catch (e) {
    await destroy().catch(() => undefined);
    if (signal?.aborted) throw e;
    throw new TestEnvError(
      'POOL_FAILED',
      `creating pool ${name} failed at ${steps.at(-1)}: ${(e as Error).message}`,
      {
        cause: e,
      },
    );
  }
  return {
    name,
    path,
    ...(opts.capacityBytes !== undefined ? { capacityBytes: opts.capacityBytes } : {}),
    destroy,
  };
}

async function deleteVolumes(name: string, path: string, problems: string[]): Promise<void> {
  // Refresh first so files written behind libvirt's back are known volumes too.
  const refreshed = await run('virsh', ['-c', 'qemu:///system', 'pool-refresh', name]);
  if (refreshed.code !== 0) return; // inactive pool: nothing to delete through libvirt
  let entries: string[] = [];
  try {
    entries = readdirSync(path);
  } catch {
    return;
  }
  for (const file of entries) {
    if (file === 'lost+found') continue;
    const r = await run('virsh', ['-c', 'qemu:///system', 'vol-delete', '--pool', name, file]);
    if (r.code !== 0 && !/not found|no storage vol/i.test(r.stderr)) problems.push(r.stderr.trim());
  }
}

/**
 * Undefines pools named `ep-test-*` whose directory no longer exists: what a killed test
 * process leaves behind. Pools with an existing directory may belong to a live test and stay.
 */
export async function cleanupStalePools(opts: { signal?: AbortSignal } = {}): Promise<string[]> {
  const names = (await virsh(['pool-list', '--all', '--name'], opts))
    .split('\n')
    .map((s) => s.trim())
    .filter((s) => s.startsWith(POOL_PREFIX));
  const removed: string[] = [];
  for (const name of names) {
    const xml = await run('virsh', ['-c', 'qemu:///system', 'pool-dumpxml', name], opts);
    const path = /<path>([^<]*)<\/path>/.exec(xml.stdout)?.[1];
    if (xml.code !== 0 || path === undefined || existsSync(path)) continue;
    await run('virsh', ['-c', 'qemu:///system', 'pool-destroy', name], opts);
    const r = await run('virsh', ['-c', 'qemu:///system', 'pool-undefine', name], opts);
    if (r.code === 0) removed.push(name);
  }
  return removed;
}
