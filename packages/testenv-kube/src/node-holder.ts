import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { terminate } from '@egress-proxies/testenv-libvirt';

export interface NodeHolder {
  pid: number;
  /** `[cmd, args]` running `bin args` in the node's network and mount namespaces. */
  wrap(bin: string, args: string[]): [string, string[]];
  stop(): Promise<void>;
}

/**
 * Paths the node's daemons write to outside their configured dirs (containerd's shim sockets,
 * the kubelet's root with its hard-coded device-plugin socket, the CNI cache, the Pod log dirs):
 * each gets a tmpfs of its own in the node's mount namespace, so nothing reaches the host's.
 */
export const PRIVATE_PATHS = [
  '/run/containerd',
  '/var/lib/kubelet',
  '/var/lib/cni',
  '/var/log/pods',
  '/var/log/containers',
] as const;

/**
 * Mount commands that rebuild this host's cgroup layout under /sys/fs/cgroup, from its mount
 * table: `ip netns exec` mounts a fresh sysfs for the namespace, which hides the host's cgroup
 * mounts, and the kubelet, containerd and runc cannot work without them. Mounting a v1
 * hierarchy again with the same options attaches the existing one, so the node's cgroups are
 * the host's.
 */
export function cgroupMountCommands(mounts: string): string[] {
  const out: string[] = [];
  for (const line of mounts.split('\n')) {
    const [, target, type, options] = line.split(' ');
    if (
      !target ||
      !options ||
      !/^[\w,=.-]+$/.test(options) ||
      !/^\/sys\/fs\/cgroup(\/[\w,.-]+)?$/.test(target)
    )
      continue;
    if (type === 'tmpfs' && target === '/sys/fs/cgroup')
      out.unshift(`mount -t tmpfs -o ${options} cgroup ${target}`);
    else if (type === 'cgroup' || type === 'cgroup2')
      out.push(`mkdir -p ${target} && mount -t ${type} -o ${options} ${type} ${target}`);
  }
  return out;
}

/** The shell the holder runs: cgroups back, private tmpfs mounts, a ready line, then it waits. */
export function holderScript(paths: readonly string[] = PRIVATE_PATHS, cgroupMounts: string[] = []): string {
  return [
    'set -eu',
    ...cgroupMounts,
    ...paths.map((p) => `mkdir -p ${p} && mount -t tmpfs -o mode=0755 ep-kube ${p}`),
    'echo ready',
    'exec sleep infinity',
  ].join('\n');
}

const READY_MS = 30_000;

/**
 * A process that holds a private mount namespace inside the node's network namespace (as
 * `ip netns exec` sets it up, with the namespace's /sys). The node's daemons join both with
 * nsenter, so container and volume mounts live and die with that namespace: once its last
 * process is gone, the kernel drops every mount in it.
 */
export async function startNodeHolder(netns: string, logPath: string): Promise<NodeHolder> {
  const log = createWriteStream(logPath);
  const child = spawn(
    'ip',
    [
      'netns',
      'exec',
      netns,
      'unshare',
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      holderScript(PRIVATE_PATHS, cgroupMountCommands(readFileSync('/proc/self/mounts', 'utf8'))),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stderr.pipe(log);
  const pid = child.pid;
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), READY_MS);
    child.stdout.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
  if (!ready || pid === undefined) {
    child.kill('SIGKILL');
    log.end();
    const why = (() => {
      try {
        return readFileSync(logPath, 'utf8').trim();
      } catch {
        return '';
      }
    })();
    throw new Error(`cannot make the node's private mount namespace in ${netns}: ${why || 'no output'}`);
  }
  return {
    pid,
    wrap: (bin, args) => ['nsenter', ['--target', String(pid), '--mount', '--net', '--', bin, ...args]],
    async stop() {
      await terminate([pid], 5_000);
      log.end();
    },
  };
}
