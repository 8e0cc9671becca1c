import {
  type Dirent,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { isAlive } from '@egress-proxies/testenv-libvirt';

const CGROUP_FS = '/sys/fs/cgroup';

/**
 * The cgroup v1 hierarchies mounted here (`cpu`, `memory`, ..., `systemd`), skipping the v2
 * `unified` one and the comounted aliases (`cpu,cpuacct` is reached once through its real dir).
 */
export function v1Hierarchies(root = CGROUP_FS): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'unified')
    .map((d) => join(root, d.name))
    .filter((p) => existsSync(join(p, 'cgroup.procs')));
}

/** Creates `/<name>` in every v1 hierarchy, with cpuset's cpus and mems copied from the root. */
export function createCgroupRoot(name: string, root = CGROUP_FS): void {
  for (const h of v1Hierarchies(root)) {
    const dir = join(h, name);
    mkdirSync(dir, { recursive: true });
    for (const f of ['cpuset.cpus', 'cpuset.mems']) {
      const parent = join(h, f);
      if (existsSync(parent) && readFileSync(join(dir, f), 'utf8').trim() === '')
        writeFileSync(join(dir, f), readFileSync(parent, 'utf8'));
    }
  }
}

/** A cgroup removed meanwhile (by the kubelet, while a teardown walks): nothing of it is left. */
const gone = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';

/** Every process in `/<name>` and below, in all hierarchies. */
export function cgroupPids(name: string, root = CGROUP_FS): number[] {
  const pids = new Set<number>();
  const walk = (dir: string) => {
    // The kubelet removes a pod's cgroups while this walks (a container ends during teardown):
    // a cgroup gone between its parent's listing and its own reading has no process to give.
    let procs: string;
    let children: Dirent[];
    try {
      procs = readFileSync(join(dir, 'cgroup.procs'), 'utf8');
      children = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      if (gone(err)) return;
      throw err;
    }
    for (const p of procs.split('\n')) if (/^\d+$/.test(p)) pids.add(Number(p));
    for (const d of children) if (d.isDirectory()) walk(join(dir, d.name));
  };
  for (const h of v1Hierarchies(root)) walk(join(h, name));
  return [...pids];
}

/** Removes `/<name>` and everything below it, deepest first; returns the dirs that would not go. */
export function removeCgroupRoot(name: string, root = CGROUP_FS): string[] {
  const left: string[] = [];
  const remove = (dir: string) => {
    let children: Dirent[];
    try {
      children = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      // Gone meanwhile (removed by the kubelet): nothing left to remove.
      if (gone(err)) return;
      throw err;
    }
    for (const d of children) if (d.isDirectory()) remove(join(dir, d.name));
    try {
      rmdirSync(dir);
    } catch (err) {
      if (!gone(err)) left.push(dir);
    }
  };
  for (const h of v1Hierarchies(root)) {
    const dir = join(h, name);
    if (existsSync(dir) && statSync(dir).isDirectory()) remove(dir);
  }
  return left;
}

/** Cgroup roots made by testenv-kube (`ep-<pid>-kube<slot>`) for processes no longer alive. */
export function staleCgroupRoots(isAlive: (pid: number) => boolean, root = CGROUP_FS): string[] {
  const names = new Set<string>();
  for (const h of v1Hierarchies(root)) {
    for (const d of readdirSync(h, { withFileTypes: true })) {
      const m = /^ep-(\d+)-kube\d+$/.exec(d.name);
      if (d.isDirectory() && m && !isAlive(Number(m[1]))) names.add(d.name);
    }
  }
  return [...names];
}

/** SIGKILLs every process under the cgroup root until none is left (containers have no say). */
export async function killCgroup(name: string): Promise<void> {
  for (let round = 0; round < 50; round++) {
    const pids = cgroupPids(name).filter(isAlive);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
