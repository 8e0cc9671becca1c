import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupStalePools, createPool, ensureLibvirtd, POOL_PREFIX, virsh } from '../src/index.js';

async function poolNames(): Promise<string[]> {
  return (await virsh(['pool-list', '--all', '--name'])).split('\n').map((s) => s.trim());
}

describe('createPool on its own', () => {
  it('creates a running pool and destroy removes volumes, pool and directory', async () => {
    await ensureLibvirtd();
    const pool = await createPool({ name: `${POOL_PREFIX}named-${process.pid}` });
    expect(pool.name).toBe(`${POOL_PREFIX}named-${process.pid}`);
    expect(await virsh(['pool-info', pool.name])).toMatch(/State:\s+running/);
    await virsh(['vol-create-as', pool.name, 'a.qcow2', '10M', '--format', 'qcow2']);
    // A file written behind libvirt's back is a volume after refresh and is deleted too.
    writeFileSync(join(pool.path, 'b.raw'), Buffer.alloc(4096));
    await pool.destroy();
    expect(await poolNames()).not.toContain(pool.name);
    expect(existsSync(pool.path)).toBe(false);
    await pool.destroy();
  });

  it('tears down a pool that a test already stopped', async () => {
    const pool = await createPool();
    await virsh(['pool-destroy', pool.name]);
    await pool.destroy();
    expect(await poolNames()).not.toContain(pool.name);
  });

  it('a clashing name fails clearly and leaves the existing pool alone', async () => {
    const pool = await createPool();
    try {
      await expect(createPool({ name: pool.name })).rejects.toThrow(new RegExp(`${pool.name}.*pool-define`));
      expect(await virsh(['pool-info', pool.name])).toMatch(/State:\s+running/);
    } finally {
      await pool.destroy();
    }
  });

  it('cleanupStalePools undefines test pools whose directory is gone, and only those', async () => {
    const stale = await createPool();
    const live = await createPool();
    try {
      await virsh(['pool-destroy', stale.name]);
      rmSync(stale.path, { recursive: true, force: true });
      const removed = await cleanupStalePools();
      expect(removed).toContain(stale.name);
      expect(removed).not.toContain(live.name);
      const names = await poolNames();
      expect(names).not.toContain(stale.name);
      expect(names).toContain(live.name);
    } finally {
      await stale.destroy();
      await live.destroy();
    }
  });
});
