import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireExclusiveUse } from '../src/exclusive-use.js';
import type { HeldLock } from '../src/file-lock.js';
import { ensureLibvirtd, LIBVIRT_SOCKET, libvirtdPid, virsh } from '../src/index.js';
import { LIBVIRTD_PID_FILE, VIRTLOGD_SOCKET } from '../src/paths.js';
import { findProcesses, isAlive } from '../src/processes.js';
import { canConnect, libvirtdAnswers } from '../src/socket-probe.js';

async function killHard(name: string): Promise<void> {
  const pids = findProcesses(name);
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  while (pids.some(isAlive)) await new Promise((r) => setTimeout(r, 50));
}

/** A pid that certainly belongs to no running process. */
function deadPid(): number {
  return spawnSync('true').pid!;
}

// Stopping the shared daemons is only fair while no other test env on the machine uses them.
describe('ensureLibvirtd from a crashed state', () => {
  let exclusive: HeldLock;

  beforeAll(async () => {
    exclusive = await acquireExclusiveUse();
  }, 600_000);
  afterAll(async () => {
    await ensureLibvirtd();
    await exclusive?.release();
  }, 120_000);

  it('starts virtlogd and libvirtd over stale sockets and pid files, once, under concurrent callers', async () => {
    await ensureLibvirtd();
    await killHard('libvirtd');
    await killHard('virtlogd');
    // SIGKILL leaves the sockets behind; add a pid file naming a dead process.
    writeFileSync(LIBVIRTD_PID_FILE, `${deadPid()}\n`);
    expect(existsSync(LIBVIRT_SOCKET)).toBe(true);
    expect(await canConnect(LIBVIRT_SOCKET)).toBe(false);
    expect(await canConnect(VIRTLOGD_SOCKET)).toBe(false);

    const results = await Promise.all([ensureLibvirtd(), ensureLibvirtd(), ensureLibvirtd()]);

    const starters = results.filter((r) => r.started.length > 0);
    expect(starters).toHaveLength(1);
    expect(starters[0]!.started).toEqual(expect.arrayContaining(['virtlogd', 'libvirtd']));
    for (const r of results) expect(r.socketPath).toBe(LIBVIRT_SOCKET);
    expect(findProcesses('libvirtd')).toHaveLength(1);
    expect(findProcesses('virtlogd')).toHaveLength(1);
    expect(libvirtdPid()).toBe(findProcesses('libvirtd')[0]);
    expect(await libvirtdAnswers(LIBVIRT_SOCKET)).toBe(true);
    expect(await canConnect(VIRTLOGD_SOCKET)).toBe(true);
    expect(await virsh(['pool-list', '--all'])).toContain('Name');
  }, 120_000);

  it('is a no-op when everything answers', async () => {
    const pid = libvirtdPid();
    const r = await ensureLibvirtd();
    expect(r.started).toEqual([]);
    expect(libvirtdPid()).toBe(pid);
  });

  it('returns promptly with the abort reason when aborted', async () => {
    const ctl = new AbortController();
    const reason = new Error('stop now');
    ctl.abort(reason);
    await expect(ensureLibvirtd({ signal: ctl.signal })).rejects.toBe(reason);
  });
});
