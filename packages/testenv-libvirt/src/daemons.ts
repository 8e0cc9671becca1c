import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from './abort.js';
import { TestEnvError } from './errors.js';
import { withFileLock } from './file-lock.js';
import { fixKvmDevicePermissions } from './kvm-device.js';
import { ensurePackages } from './packages.js';
import {
  DAEMON_LOG_DIR,
  LIBVIRT_SOCKET,
  LIBVIRTD_PID_FILE,
  lockPath,
  VIRTLOCKD_PID_FILE,
  VIRTLOCKD_SOCKET,
  VIRTLOGD_PID_FILE,
  VIRTLOGD_SOCKET,
} from './paths.js';
import { findProcesses, isAlive, livePidFromFile, terminate } from './processes.js';
import { canConnect, libvirtdAnswers } from './socket-probe.js';

interface DaemonSpec {
  name: string;
  bin: string;
  pidFile: string;
  socket: string;
  /** Every socket the daemon binds; removed when stale so a fresh start cannot trip over them. */
  sockets: string[];
  ready(): Promise<boolean>;
  optional?: boolean;
}

const VIRTLOGD: DaemonSpec = {
  name: 'virtlogd',
  bin: '/usr/sbin/virtlogd',
  pidFile: VIRTLOGD_PID_FILE,
  socket: VIRTLOGD_SOCKET,
  sockets: [VIRTLOGD_SOCKET, '/var/run/libvirt/virtlogd-admin-sock'],
  ready: () => canConnect(VIRTLOGD_SOCKET),
};

const VIRTLOCKD: DaemonSpec = {
  name: 'virtlockd',
  bin: '/usr/sbin/virtlockd',
  pidFile: VIRTLOCKD_PID_FILE,
  socket: VIRTLOCKD_SOCKET,
  sockets: [VIRTLOCKD_SOCKET, '/var/run/libvirt/virtlockd-admin-sock'],
  ready: () => canConnect(VIRTLOCKD_SOCKET),
  optional: true,
};

const LIBVIRTD: DaemonSpec = {
  name: 'libvirtd',
  bin: '/usr/sbin/libvirtd',
  pidFile: LIBVIRTD_PID_FILE,
  socket: LIBVIRT_SOCKET,
  sockets: [LIBVIRT_SOCKET, '/var/run/libvirt/libvirt-sock-ro', '/var/run/libvirt/libvirt-admin-sock'],
  ready: () => libvirtdAnswers(LIBVIRT_SOCKET),
};

const START_TIMEOUT_MS = 90_000;

export interface EnsureLibvirtdResult {
  socketPath: string;
  /** Daemons this call had to start (empty when everything was already up). */
  started: string[];
}

function logPathFor(spec: DaemonSpec): string {
  return join(DAEMON_LOG_DIR, `${spec.name}-testenv.log`);
}

function logTail(path: string, lines = 30): string {
  try {
    const text = readFileSync(path, 'utf8').trimEnd().split('\n');
    return text.slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function livePid(spec: DaemonSpec): number | undefined {
  return livePidFromFile(spec.pidFile, spec.name) ?? findProcesses(spec.name)[0];
}

async function waitReady(
  spec: DaemonSpec,
  exited: () => string | undefined,
  signal: AbortSignal | undefined,
): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    signal?.throwIfAborted();
    if (await spec.ready()) return;
    const gone = exited();
    if (gone !== undefined) {
      throw new TestEnvError(
        'DAEMON_START_FAILED',
        `${spec.name} exited during start-up (${gone}); last lines of ${logPathFor(spec)}:\n${logTail(logPathFor(spec))}`,
      );
    }
    if (Date.now() > deadline) {
      throw new TestEnvError(
        'DAEMON_START_FAILED',
        `${spec.name} did not answer on ${spec.socket} within ${START_TIMEOUT_MS} ms; last lines of ${logPathFor(spec)}:\n${logTail(logPathFor(spec))}`,
      );
    }
    await sleep(150, signal);
  }
}

/** Starts one daemon unless it already answers. Caller holds the daemons lock. */
async function startDaemon(spec: DaemonSpec, signal: AbortSignal | undefined): Promise<boolean> {
  if (await spec.ready()) return false;
  if (spec.optional && !existsSync(spec.bin)) return false;
  const running = livePid(spec);
  if (running !== undefined) {
    // Started by someone outside our lock and still initialising, or wedged: give it the full wait.
    await waitReady(spec, () => (isAlive(running) ? undefined : `pid ${running} is gone`), signal);
    return false;
  }
  // Nothing alive owns these: a killed daemon leaves its sockets and pid file behind.
  for (const s of spec.sockets) rmSync(s, { force: true });
  rmSync(spec.pidFile, { force: true });
  mkdirSync(DAEMON_LOG_DIR, { recursive: true });
  mkdirSync('/var/run/libvirt', { recursive: true });
  const log = logPathFor(spec);
  appendFileSync(
    log,
    `\n--- ${new Date().toISOString()} started by testenv-libvirt (pid ${process.pid}) ---\n`,
  );
  const fd = openSync(log, 'a');
  let exitInfo: string | undefined;
  try {
    // Foreground mode in its own session: stderr lands in our log file, and the daemon outlives
    // this process (other suites reuse it).
    const child = spawn(spec.bin, [], { detached: true, stdio: ['ignore', fd, fd] });
    child.on('error', (e) => {
      exitInfo = e.message;
    });
    child.on('exit', (code, sig) => {
      exitInfo = sig ? `signal ${sig}` : `exit code ${code}`;
    });
    child.unref();
  } finally {
    closeSync(fd);
  }
  await waitReady(spec, () => exitInfo, signal);
  return true;
}

/**
 * Makes sure virtlogd (QEMU's log handler; without it domains fail to start), virtlockd and
 * libvirtd are running and libvirtd answers on its socket, and that /dev/kvm is usable by
 * QEMU's group as on a udev-managed host (see fixKvmDevicePermissions). Safe to call from many processes at
 * once: starts are serialised by a machine-wide lock. Daemons are never stopped by this package
 * at teardown, so later suites reuse them.
 */
export async function ensureLibvirtd(opts: { signal?: AbortSignal } = {}): Promise<EnsureLibvirtdResult> {
  const { signal } = opts;
  await ensurePackages(undefined, { signal });
  fixKvmDevicePermissions();
  if ((await LIBVIRTD.ready()) && (await VIRTLOGD.ready()))
    return { socketPath: LIBVIRT_SOCKET, started: [] };
  return withFileLock(lockPath('daemons'), { timeoutMs: 3 * START_TIMEOUT_MS, signal }, async () => {
    const started: string[] = [];
    for (const spec of [VIRTLOGD, VIRTLOCKD, LIBVIRTD]) {
      if (await startDaemon(spec, signal)) started.push(spec.name);
    }
    return { socketPath: LIBVIRT_SOCKET, started };
  });
}

/**
 * Stops libvirtd (SIGTERM, then SIGKILL), starts it again and waits until it answers.
 * Every client connection is cut. This does not coordinate with other test processes; the env's
 * restartLibvirtd() does.
 */
export async function restartLibvirtd(
  opts: { signal?: AbortSignal } = {},
): Promise<{ pid: number | undefined }> {
  const { signal } = opts;
  await ensureLibvirtd({ signal });
  return withFileLock(lockPath('daemons'), { timeoutMs: 3 * START_TIMEOUT_MS, signal }, async () => {
    const pids = [
      ...new Set([livePidFromFile(LIBVIRTD.pidFile, LIBVIRTD.name), ...findProcesses('libvirtd')]),
    ];
    const running = pids.filter((p): p is number => p !== undefined);
    if (!(await terminate(running, 30_000))) {
      throw new TestEnvError('DAEMON_STOP_FAILED', `libvirtd (pid ${running.join(', ')}) did not exit`);
    }
    await startDaemon(VIRTLOGD, signal);
    await startDaemon(LIBVIRTD, signal);
    return { pid: livePid(LIBVIRTD) };
  });
}

/** The pid of the running libvirtd, if any (for tests that check a restart really happened). */
export function libvirtdPid(): number | undefined {
  return livePid(LIBVIRTD);
}
