import {
  appendFileSync,
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { isAlive, libvirtdAnswers, sleep, terminate } from '@egress-proxies/testenv-libvirt';
import { TestEnvVmError } from './errors.js';
import { spawnLogged } from './logged-child.js';
import { inNetns } from './netns.js';

export interface PrivateLibvirtd {
  /** The daemon's read-write socket, outside its private mounts so any process can reach it. */
  socketPath: string;
  /** `qemu+unix:///system?socket=...` for virsh. */
  uri: string;
  pid: number;
  logPath: string;
  /** QEMU's per-domain logs, written by the private virtlogd. */
  qemuLogDir: string;
  stop(): Promise<void>;
}

export interface StartPrivateLibvirtdOptions {
  netns: string;
  /** Holds the daemon's state, config, sockets and logs; must be traversable by QEMU's user. */
  dir: string;
  signal?: AbortSignal;
}

const START_TIMEOUT_MS = 60_000;

/** Per-domain state the host's own libvirtd keeps; the private daemon gets empty copies. */
const PRIVATE_DIRS = ['/var/lib/libvirt', '/var/cache/libvirt', '/var/log/libvirt', '/etc/libvirt'] as const;

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The host's libvirt config without its defined objects (domains, networks, pools, secrets). */
function privateConfig(etc: string, sockDir: string): void {
  cpSync('/etc/libvirt', etc, { recursive: true });
  for (const sub of ['qemu', 'storage', 'secrets', 'nwfilter']) {
    const d = join(etc, sub);
    if (!existsSync(d)) continue;
    for (const f of readdirSync(d)) rmSync(join(d, f), { recursive: true, force: true });
  }
  // Without systemd the cgroup layout is whatever the machine mounted, and /sys is remounted for
  // the namespace; the test VMs need no resource control.
  appendFileSync(join(etc, 'qemu.conf'), '\ncgroup_controllers = [ ]\n');
  writeFileSync(
    join(etc, 'libvirtd.conf'),
    [
      `unix_sock_dir = "${sockDir}"`,
      'unix_sock_group = "root"',
      'unix_sock_rw_perms = "0770"',
      'auth_unix_rw = "none"',
      'auth_unix_ro = "none"',
      '',
    ].join('\n'),
  );
}

/**
 * A libvirtd (with its own virtlogd) inside a network namespace and a private mount namespace:
 * the taps of its domains join bridges in that network namespace, and its state never mixes
 * with the host's system libvirtd, which other suites keep using at the same time.
 */
export async function startPrivateLibvirtd(o: StartPrivateLibvirtdOptions): Promise<PrivateLibvirtd> {
  const { dir } = o;
  const sockDir = join(dir, 'sock');
  const state = {
    lib: join(dir, 'lib'),
    cache: join(dir, 'cache'),
    log: join(dir, 'log'),
    etc: join(dir, 'etc'),
  };
  for (const d of [sockDir, state.lib, join(state.lib, 'qemu'), state.cache, state.log])
    mkdirSync(d, { recursive: true });
  for (const d of [dir, state.lib, join(state.lib, 'qemu')]) chmodSync(d, 0o755);
  privateConfig(state.etc, sockDir);
  const script = join(dir, 'start-libvirtd.sh');
  const [libDir, cacheDir, logDir, etcDir] = PRIVATE_DIRS;
  writeFileSync(
    script,
    [
      'set -eu',
      'mkdir -p /run/libvirt',
      'mount -t tmpfs -o mode=0755 ep-libvirt-run /run/libvirt',
      `mount --bind ${shellQuote(state.lib)} ${libDir}`,
      `mount --bind ${shellQuote(state.cache)} ${cacheDir}`,
      `mount --bind ${shellQuote(state.log)} ${logDir}`,
      `mount --bind ${shellQuote(state.etc)} ${etcDir}`,
      `virtlogd -d -p ${shellQuote(join(dir, 'virtlogd.pid'))}`,
      `exec libvirtd -p ${shellQuote(join(dir, 'libvirtd.pid'))} -f ${shellQuote(join(state.etc, 'libvirtd.conf'))}`,
      '',
    ].join('\n'),
  );
  const logPath = join(dir, 'libvirtd.log');
  const [cmd, args] = inNetns(o.netns, 'unshare', ['--mount', '--propagation', 'private', 'sh', script]);
  const { child, exited } = spawnLogged(cmd, args, logPath);
  const socketPath = join(sockDir, 'libvirt-sock');
  const tail = () => readFileSync(logPath, 'utf8').trim().split('\n').slice(-20).join('\n');
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(existsSync(socketPath) && (await libvirtdAnswers(socketPath)))) {
    if (exited() !== undefined) {
      throw new TestEnvVmError(
        'NETNS_FAILED',
        `the private libvirtd exited during start-up (${exited()}):\n${tail()}`,
      );
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new TestEnvVmError(
        'NETNS_FAILED',
        `the private libvirtd did not answer within ${START_TIMEOUT_MS} ms:\n${tail()}`,
      );
    }
    await sleep(150, o.signal);
  }
  const pid = child.pid as number;
  return {
    socketPath,
    uri: `qemu+unix:///system?socket=${socketPath}`,
    pid,
    logPath,
    qemuLogDir: join(state.log, 'qemu'),
    stop: async () => {
      const pids = [pid];
      const logd = Number.parseInt(readIfExists(join(dir, 'virtlogd.pid')), 10);
      if (Number.isInteger(logd) && isAlive(logd)) pids.push(logd);
      await terminate(pids, 15_000);
    },
  };
}

function readIfExists(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}
