import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  cgroupPids,
  createCgroupRoot,
  removeCgroupRoot,
  staleCgroupRoots,
  v1Hierarchies,
} from './cgroups.js';

// A directory laid out like /sys/fs/cgroup on a v1 hybrid host (plain files stand in for the
// kernel's; rmdir of a non-empty dir fails as it does for a cgroup with processes).
let root: string;
function hierarchy(name: string, extra: Record<string, string> = {}) {
  mkdirSync(join(root, name), { recursive: true });
  writeFileSync(join(root, name, 'cgroup.procs'), '');
  for (const [f, v] of Object.entries(extra)) writeFileSync(join(root, name, f), v);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cg-test-'));
  hierarchy('memory');
  hierarchy('cpuset', { 'cpuset.cpus': '0-1\n', 'cpuset.mems': '0\n' });
  mkdirSync(join(root, 'unified'));
  writeFileSync(join(root, 'unified', 'cgroup.procs'), '');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('cgroup roots of a test node', () => {
  it('lists the v1 hierarchies, not the unified one', () => {
    expect(
      v1Hierarchies(root)
        .map((h) => h.slice(root.length + 1))
        .sort(),
    ).toEqual(['cpuset', 'memory']);
  });

  it('creates the root in each hierarchy and gives cpuset the parent cpus and mems', () => {
    // The kernel creates these files empty in a new cpuset cgroup.
    mkdirSync(join(root, 'cpuset', 'ep-1-kube0'));
    writeFileSync(join(root, 'cpuset', 'ep-1-kube0', 'cpuset.cpus'), '');
    writeFileSync(join(root, 'cpuset', 'ep-1-kube0', 'cpuset.mems'), '');
    createCgroupRoot('ep-1-kube0', root);
    expect(existsSync(join(root, 'memory', 'ep-1-kube0'))).toBe(true);
    expect(readFileSync(join(root, 'cpuset', 'ep-1-kube0', 'cpuset.cpus'), 'utf8')).toBe('0-1\n');
    expect(readFileSync(join(root, 'cpuset', 'ep-1-kube0', 'cpuset.mems'), 'utf8')).toBe('0\n');
  });

  it('collects the pids of every cgroup below the root', () => {
    const pod = join(root, 'memory', 'ep-1-kube0', 'kubepods', 'pod1');
    mkdirSync(pod, { recursive: true });
    writeFileSync(join(root, 'memory', 'ep-1-kube0', 'cgroup.procs'), '');
    writeFileSync(join(root, 'memory', 'ep-1-kube0', 'kubepods', 'cgroup.procs'), '12\n');
    writeFileSync(join(pod, 'cgroup.procs'), '34\n56\n');
    expect(cgroupPids('ep-1-kube0', root).sort()).toEqual([12, 34, 56]);
    expect(cgroupPids('absent', root)).toEqual([]);
  });

  it('skips a cgroup that goes while it walks (the kubelet removing a pod during teardown)', () => {
    const pods = join(root, 'memory', 'ep-1-kube0', 'kubepods');
    mkdirSync(join(pods, 'gone'), { recursive: true });
    writeFileSync(join(root, 'memory', 'ep-1-kube0', 'cgroup.procs'), '');
    writeFileSync(join(pods, 'cgroup.procs'), '12\n');
    // Listed by its parent, but its cgroup.procs no longer opens: ENOENT, as for a removed cgroup.
    expect(cgroupPids('ep-1-kube0', root)).toEqual([12]);
  });

  it('removes empty cgroups deepest first and reports what would not go', () => {
    mkdirSync(join(root, 'memory', 'ep-1-kube0', 'kubepods', 'pod1'), { recursive: true });
    mkdirSync(join(root, 'cpuset', 'ep-1-kube0', 'busy'), { recursive: true });
    writeFileSync(join(root, 'cpuset', 'ep-1-kube0', 'busy', 'tasks'), '7\n');
    const left = removeCgroupRoot('ep-1-kube0', root);
    expect(existsSync(join(root, 'memory', 'ep-1-kube0'))).toBe(false);
    expect(left.map((d) => d.slice(root.length + 1))).toEqual([
      'cpuset/ep-1-kube0/busy',
      'cpuset/ep-1-kube0',
    ]);
  });

  it('names the roots whose owner process is gone, and only those of this package', () => {
    for (const d of ['ep-10-kube0', 'ep-11-kube3', 'ep-12-hv', 'other']) mkdirSync(join(root, 'memory', d));
    expect(staleCgroupRoots((pid) => pid === 11, root)).toEqual(['ep-10-kube0']);
  });
});
