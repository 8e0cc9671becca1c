import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { copyFile, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { freePort, sleep } from '@egress-proxies/testenv-libvirt';
import { acquireBootSlot, type BootSlot, type BootSlotOptions } from './boot-slot.js';
import type { CloudInitProgress } from './cloud-init-status.js';
import { TestEnvVmError } from './errors.js';
import { requireUefiFirmware, type UefiFirmware } from './firmware.js';
import { createGuestAgent, type GuestAgent } from './guest-agent.js';
import {
  type GuestWaitOptions,
  waitForAgentWithProgress,
  waitForCloudInitWithProgress,
} from './guest-waits.js';
import { ensureHostPackages } from './prerequisites.js';
import { GUEST_FORWARD_ADDRESS, qemuArgs } from './qemu-args.js';
import { RELAY_SCRIPT, shellWord } from './relay-script.js';
import { tailFile } from './serial-log.js';

export interface GuestForward {
  /** Port the guest connects to on GUEST_FORWARD_ADDRESS. */
  guestPort: number;
  /** Host loopback port the connection is spliced to. */
  hostPort: number;
}

export interface BootVmOptions {
  /** The base qcow2 image; it is only read (the VM writes to an overlay in its work dir). */
  image: string;
  /** The NoCloud seed: a path to an ISO file, or its bytes. */
  seedIso: string | Uint8Array;
  /** Default 1024. */
  memoryMiB?: number;
  /** Default 1. */
  cpus?: number;
  /** The guest port published on host loopback as `hostProxyPort`; default 3128 (Squid). */
  guestProxyPort?: number;
  /** Host loopback services the guest may reach, at GUEST_FORWARD_ADDRESS:guestPort. */
  guestForwards?: GuestForward[];
  firmware?: UefiFirmware;
  /** Where the VM's work dir is created; default the OS temp dir. Keep it short: the agent socket lives there. */
  tmpRoot?: string;
  /** Cancels the boot (QEMU is stopped and the work dir removed); a booted VM runs until stop(). */
  signal?: AbortSignal;
  /**
   * The machine-wide guest-boot slot QEMU starts in (two TCG boots side by side on two cores
   * starve each other and every other suite). Default: one is taken here, waiting as long as it
   * takes; pass a slot you already hold to have the VM adopt it, or `false` to boot without one.
   * The VM holds it until stop() or releaseBootSlot().
   */
  bootSlot?: BootSlot | BootSlotOptions | false;
}

/** Deadlines measured from the guest's last progress (console output), with an overall cap. */
export type WaitForAgentOptions = GuestWaitOptions;

export interface RunningVm {
  serialLogPath: string;
  /** The guest's proxy port, published on 127.0.0.1 only. */
  hostProxyPort: number;
  /** Where the guest reaches `guestForwards`. */
  guestForwardAddress: string;
  agentSocketPath: string;
  workDir: string;
  pid: number;
  agent: GuestAgent;
  /** Polls guest-ping until the agent answers; resolves with the milliseconds since QEMU started. */
  waitForAgent(opts?: WaitForAgentOptions): Promise<number>;
  /** Until cloud-init has run every stage (read from its status.json); its errors are in the result. */
  waitForCloudInit(opts?: GuestWaitOptions): Promise<CloudInitProgress>;
  /** Frees the boot slot early (a booted guest that only idles no longer needs it). Safe to call twice. */
  releaseBootSlot(): Promise<void>;
  /** The end of the serial console, for failure messages. */
  serialTail(lines?: number): Promise<string>;
  /** Set once QEMU has exited. */
  readonly exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Stops QEMU and removes the work dir (overlay, firmware vars, logs). Safe to call twice. */
  stop(): Promise<void>;
}

// QEMU processes and work dirs still alive if the test process exits without stop().
const live = new Map<ChildProcess, string>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const [child, dir] of live) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

function validate(opts: BootVmOptions): void {
  if (typeof opts?.image !== 'string' || opts.image === '') {
    throw new TestEnvVmError(
      'INVALID_ARGUMENT',
      `image must be a path to a qcow2 file, got ${String(opts?.image)}`,
    );
  }
  if (typeof opts.seedIso !== 'string' && !(opts.seedIso instanceof Uint8Array)) {
    throw new TestEnvVmError('INVALID_ARGUMENT', 'seedIso must be a path or a Uint8Array');
  }
  const mem = opts.memoryMiB ?? 1024;
  if (!Number.isInteger(mem) || mem < 256 || mem > 16384) {
    throw new TestEnvVmError(
      'INVALID_ARGUMENT',
      `memoryMiB must be an integer from 256 to 16384, got ${mem}`,
    );
  }
  const cpus = opts.cpus ?? 1;
  if (!Number.isInteger(cpus) || cpus < 1 || cpus > 8) {
    throw new TestEnvVmError('INVALID_ARGUMENT', `cpus must be an integer from 1 to 8, got ${cpus}`);
  }
  const ports = [
    opts.guestProxyPort ?? 3128,
    ...(opts.guestForwards ?? []).flatMap((f) => [f.guestPort, f.hostPort]),
  ];
  for (const p of ports) {
    if (!Number.isInteger(p) || p < 1 || p > 65535) {
      throw new TestEnvVmError('INVALID_ARGUMENT', `port ${p} is not an integer from 1 to 65535`);
    }
  }
}

async function startQemu(args: string[], agentSocket: string, signal?: AbortSignal) {
  const child = spawn('qemu-system-x86_64', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => {
    child.on('close', (code, sig) => res({ code, signal: sig }));
  });
  const spawnError = new Promise<Error>((res) => child.once('error', res));
  // QEMU creates the agent socket once its command line has been accepted and devices exist.
  for (;;) {
    const early = await Promise.race([
      exited.then((e) => ({ kind: 'exit' as const, e })),
      spawnError.then((err) => ({ kind: 'error' as const, err })),
      sleep(100).then(() => ({ kind: 'tick' as const })),
    ]);
    if (early.kind === 'error') {
      throw new TestEnvVmError('VM_START_FAILED', `cannot run qemu-system-x86_64: ${early.err.message}`);
    }
    if (early.kind === 'exit')
      return { child, exited, failure: stderr.trim() || `exit code ${early.e.code}` };
    if (existsSync(agentSocket)) return { child, exited, failure: undefined, stderrTail: () => stderr };
    if (signal?.aborted) {
      child.kill('SIGKILL');
      await exited;
      throw signal.reason;
    }
  }
}

async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const done = await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)]);
  if (!done) {
    child.kill('SIGKILL');
    await exited;
  }
}

/**
 * Boots the image under QEMU directly (no libvirt): q35 with OVMF under TCG, the image behind a
 * throwaway qcow2 overlay, the seed on a SATA cdrom, a virtio NIC on restricted user-mode
 * networking, the serial console in a log file and the guest agent on a unix socket.
 */
export async function bootVm(opts: BootVmOptions): Promise<RunningVm> {
  validate(opts);
  opts.signal?.throwIfAborted();
  await ensureHostPackages({ signal: opts.signal });
  const image = resolve(opts.image);
  try {
    await stat(image);
  } catch {
    throw new TestEnvVmError('INVALID_ARGUMENT', `image ${image} does not exist`);
  }
  const firmware = opts.firmware ?? requireUefiFirmware();
  const slot = await takeSlot(opts);
  let workDir: string;
  try {
    workDir = await mkdtemp(join(opts.tmpRoot ?? tmpdir(), 'testenv-vm-'));
  } catch (e) {
    await slot?.release();
    throw e;
  }
  installExitHook();
  let child: ChildProcess | undefined;
  try {
    const overlay = join(workDir, 'overlay.qcow2');
    const vars = join(workDir, 'OVMF_VARS.fd');
    const serialLog = join(workDir, 'serial.log');
    const agentSocket = join(workDir, 'agent.sock');
    let seedIso: string;
    if (typeof opts.seedIso === 'string') {
      seedIso = isAbsolute(opts.seedIso) ? opts.seedIso : resolve(opts.seedIso);
    } else {
      seedIso = join(workDir, 'seed.iso');
      await writeFile(seedIso, opts.seedIso);
    }
    await copyFile(firmware.vars, vars);
    await runQemuImg(['create', '-q', '-f', 'qcow2', '-F', 'qcow2', '-b', image, overlay], opts.signal);
    const guestForwards = [];
    if ((opts.guestForwards ?? []).length > 0) {
      const relay = join(workDir, 'relay.cjs');
      await writeFile(relay, RELAY_SCRIPT);
      for (const f of opts.guestForwards ?? []) {
        guestForwards.push({
          guestPort: f.guestPort,
          command: [process.execPath, relay, String(f.hostPort)].map(shellWord).join(' '),
        });
      }
    }
    // The forwarded port was free a moment ago; another process can take it before QEMU binds.
    for (let attempt = 1; ; attempt++) {
      const hostProxyPort = await freePort();
      const args = qemuArgs({
        memoryMiB: opts.memoryMiB ?? 1024,
        cpus: opts.cpus ?? 1,
        firmwareCode: firmware.code,
        firmwareVars: vars,
        overlay,
        seedIso,
        serialLog,
        agentSocket,
        hostProxyPort,
        guestProxyPort: opts.guestProxyPort ?? 3128,
        guestForwards,
      });
      const started = await startQemu(args, agentSocket, opts.signal);
      if (started.failure !== undefined) {
        if (attempt < 3 && /host forwarding|Address already in use/i.test(started.failure)) continue;
        throw new TestEnvVmError('VM_START_FAILED', `qemu-system-x86_64 exited at start: ${started.failure}`);
      }
      child = started.child;
      live.set(child, workDir);
      const startedAt = Date.now();
      const exited = started.exited;
      let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      void exited.then((e) => {
        exitInfo = e;
      });
      const agent = createGuestAgent(agentSocket);
      const target = {
        agent,
        serialLog,
        gone: async () =>
          exitInfo
            ? `QEMU exited (code ${exitInfo.code}, signal ${exitInfo.signal}): ${started.stderrTail?.() ?? ''}`
            : undefined,
      };
      const qemu = child;
      let stopping: Promise<void> | undefined;
      const vm: RunningVm = {
        serialLogPath: serialLog,
        hostProxyPort,
        guestForwardAddress: GUEST_FORWARD_ADDRESS,
        agentSocketPath: agentSocket,
        workDir,
        pid: qemu.pid ?? 0,
        agent,
        get exit() {
          return exitInfo;
        },
        serialTail: (lines) => tailFile(serialLog, lines),
        async waitForAgent(w = {}) {
          await waitForAgentWithProgress(target, w);
          return Date.now() - startedAt;
        },
        waitForCloudInit: (w = {}) => waitForCloudInitWithProgress(target, w),
        releaseBootSlot: async () => {
          await slot?.release();
        },
        stop() {
          stopping ??= (async () => {
            agent.close();
            await stopChild(qemu, exited);
            live.delete(qemu);
            await rm(workDir, { recursive: true, force: true });
            await slot?.release();
          })();
          return stopping;
        },
      };
      return vm;
    }
  } catch (e) {
    if (child) {
      child.kill('SIGKILL');
      live.delete(child);
    }
    await rm(workDir, { recursive: true, force: true });
    await slot?.release();
    throw e;
  }
}

async function takeSlot(opts: BootVmOptions): Promise<BootSlot | undefined> {
  const s = opts.bootSlot;
  if (s === false) return undefined;
  if (s && 'release' in s) return s;
  return acquireBootSlot({ holder: 'testenv-vm bootVm', signal: opts.signal, ...(s ?? {}) });
}

function runQemuImg(args: string[], signal?: AbortSignal): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('qemu-img', args, { stdio: ['ignore', 'ignore', 'pipe'], signal });
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.on('error', (e) => reject(signal?.aborted ? signal.reason : e));
    child.on('close', (code) =>
      code === 0
        ? resolvePromise()
        : reject(
            new TestEnvVmError('VM_START_FAILED', `qemu-img ${args[0]} failed (exit ${code}): ${err.trim()}`),
          ),
    );
  });
}
