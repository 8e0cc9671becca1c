import { transientError } from '@egress-proxies/contract';
import { sleep } from '@egress-proxies/provider-utils';
import type { ProcessInfo } from './backend.js';
import type { Context } from './context.js';
import type { ProcessCondition } from './state.js';
import type { InstanceRecord } from './state-file.js';

/**
 * Whether a live pid is still the process this instance started: the start time recorded at
 * spawn must match, and its command line must name the instance's runtime directory. A pid that
 * fails either test was reused by something else and is never signalled.
 */
export function isOurProcess(info: ProcessInfo, record: InstanceRecord, runtimeDir: string): boolean {
  if (!info.alive || !record.startTime || info.startTime !== record.startTime) return false;
  const prefix = `${runtimeDir}/`;
  return (info.cmdline ?? []).some((arg) => arg.startsWith(prefix));
}

/**
 * Whether the process itself listens on `port`. Another program answering on the port (one
 * that took it before the proxy could bind) must not make the proxy look ready. When /proc
 * cannot tell, the port probe alone decides.
 */
export function listensOn(info: ProcessInfo, port: number): boolean {
  return info.listenPorts === undefined || info.listenPorts.includes(port);
}

/** The instance's own process, when it runs now (one inspect call; none without a pid). */
export async function ownProcess(
  ctx: Context,
  name: string,
  record: InstanceRecord,
): Promise<ProcessInfo | undefined> {
  if (!record.pid) return undefined;
  const info = await ctx.backend.inspect(ctx.signal, record.pid);
  return isOurProcess(info, record, ctx.paths.runtimeDir(name)) ? info : undefined;
}

export async function processRuns(ctx: Context, name: string, record: InstanceRecord): Promise<boolean> {
  return (await ownProcess(ctx, name, record)) !== undefined;
}

/** The address clients connect to: the bind address, or loopback when it binds every address. */
export function connectAddress(record: InstanceRecord, fallbackBind: string): string {
  const bind = record.bindAddress ?? fallbackBind;
  if (bind === '0.0.0.0')
    return record.localAddress && !record.localAddress.includes(':') ? record.localAddress : '127.0.0.1';
  if (bind === '::') return record.localAddress ?? '::1';
  return bind;
}

/** Process alive, then port: the input of the state table. */
export async function conditionOf(
  ctx: Context,
  name: string,
  record: InstanceRecord,
): Promise<ProcessCondition> {
  const info = await ownProcess(ctx, name, record);
  if (!info || !record.port) return 'absent';
  if (!listensOn(info, record.port)) return 'alive-not-accepting';
  let accepting = false;
  try {
    accepting = await ctx.backend.probePort(
      ctx.signal,
      connectAddress(record, ctx.config.bindAddress),
      record.port,
    );
  } catch (err) {
    // A failed probe means "not reachable yet", not an error; an abort still ends the call.
    if (ctx.signal?.aborted) throw err;
  }
  return accepting ? 'accepting' : 'alive-not-accepting';
}

/** Polls `done` until it holds or `ms` pass; false on expiry. Aborts with the call's signal. */
export async function pollUntil(ctx: Context, ms: number, done: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await done()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(ctx.timing.pollIntervalMs, ctx.signal);
  }
}

/**
 * Stops processes that run from the instance's runtime directory but that its state file does
 * not record: left by a crash between the spawn and the state write. Their command line names
 * the runtime directory, which only this instance's processes do.
 */
export async function stopStrays(ctx: Context, name: string): Promise<void> {
  const prefix = `${ctx.paths.runtimeDir(name)}/`;
  const strays = await ctx.backend.findProcesses(ctx.signal, prefix);
  if (strays.length === 0) return;
  ctx.logger.log(1, 'local stopping unrecorded proxy processes', { name, pids: strays });
  const stillThere = async () => {
    const left: number[] = [];
    for (const pid of strays) {
      const info = await ctx.pollBackend.inspect(ctx.signal, pid);
      if (info.alive && (info.cmdline ?? []).some((a) => a.startsWith(prefix))) left.push(pid);
    }
    return left;
  };
  for (const pid of strays) await ctx.backend.kill(ctx.signal, pid, 'SIGTERM');
  if (await pollUntil(ctx, ctx.timing.stopGraceMs, async () => (await stillThere()).length === 0)) return;
  for (const pid of await stillThere()) await ctx.backend.kill(ctx.signal, pid, 'SIGKILL');
  if (await pollUntil(ctx, ctx.timing.killWaitMs, async () => (await stillThere()).length === 0)) return;
  throw transientError(`unrecorded processes of ${name} are still running after SIGKILL`);
}

/** SIGTERM, a grace period, then SIGKILL; only ever for a pid that passed `isOurProcess`. */
export async function stopProcess(ctx: Context, name: string, record: InstanceRecord): Promise<void> {
  if (!record.pid || !(await processRuns(ctx, name, record))) return;
  const pid = record.pid;
  // Identity was proven above; from here the pid stays ours until it exits or is reused (a new
  // start time). The command line no longer decides: Squid rewrites it while it shuts down, and
  // delete must not return while the process still holds its port.
  const gone = async () => {
    const info = await ctx.pollBackend.inspect(ctx.signal, pid);
    return !info.alive || info.startTime !== record.startTime;
  };
  await ctx.backend.kill(ctx.signal, record.pid, 'SIGTERM');
  if (await pollUntil(ctx, ctx.timing.stopGraceMs, gone)) return;
  ctx.logger.log(1, 'local proxy ignored SIGTERM; killing it', { name, pid: record.pid });
  await ctx.backend.kill(ctx.signal, record.pid, 'SIGKILL');
  if (await pollUntil(ctx, ctx.timing.killWaitMs, gone)) return;
  throw transientError(`process ${record.pid} of ${name} is still running after SIGKILL`);
}
