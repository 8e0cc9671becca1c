import { ErrorCode, ProviderError, transientError } from '@egress-proxies/contract';
import type { UserIds } from './backend.js';
import type { Engine } from './config.js';
import type { Context } from './context.js';
import { NODE_PROXY_CONF, nodeArgs, nodeProxyConf, nodeRunnerPath } from './engines/node.js';
import { SQUID_CONF, SQUID_USER, squidArgs, squidConf } from './engines/squid.js';
import { engineUnavailableError, LocalErrorCode, noFreePortError, processExitedError } from './errors.js';
import { portCandidates } from './ports.js';
import { connectAddress, isOurProcess, listensOn, pollUntil, processRuns, stopStrays } from './process.js';
import { encodeState, type InstanceRecord } from './state-file.js';

const PORT_LOCK = '\0ports';

/** `auto` picks Squid when its binary is found, the Node engine otherwise. */
export async function resolveEngine(ctx: Context): Promise<Engine> {
  // Only the Node engine rotates the source address per connection (the schema refuses squid).
  if (ctx.config.engine === 'node' || ctx.egressPlan?.ipv6Prefix) return 'node';
  const squid = await ctx.backend.findSquid(ctx.signal, ctx.config.squidPath);
  if (squid) return 'squid';
  if (ctx.config.engine === 'squid') {
    throw engineUnavailableError(
      ctx.config.squidPath
        ? `engine squid: ${ctx.config.squidPath} is not an executable file`
        : 'engine squid: no squid binary on PATH or in the sbin directories; install squid or use engine node',
    );
  }
  return 'node';
}

/**
 * How many ports one start tries when its process finds the port taken: the probe and the
 * process's bind are two steps, and any process on the host (another provider instance, a proxy
 * of an aborted create still starting) can bind in between.
 */
const PORT_ATTEMPTS = 4;

/** The first free candidate port not reserved by another create of this provider. */
async function allocatePort(
  ctx: Context,
  name: string,
  preferred: number | undefined,
  avoid: ReadonlySet<number>,
): Promise<number> {
  const { min, max } = ctx.config.portRange;
  for (const port of portCandidates(name, ctx.config.portRange, preferred)) {
    if (ctx.reservedPorts.has(port) || avoid.has(port)) continue;
    if (await ctx.backend.portFree(ctx.signal, ctx.config.bindAddress, port)) return port;
  }
  throw noFreePortError(min, max);
}

interface Launch {
  command: string;
  args: string[];
  files: Record<string, string>;
  owner?: UserIds;
}

async function launchSpec(ctx: Context, name: string, record: InstanceRecord, port: number): Promise<Launch> {
  const runtimeDir = ctx.paths.runtimeDir(name);
  const bindAddress = record.bindAddress ?? ctx.config.bindAddress;
  const common = {
    port,
    allowedSourceCIDRs: ctx.config.allowedSourceCIDRs,
    ...(record.localAddress ? { localAddress: record.localAddress } : {}),
  };
  if (record.engine === 'squid') {
    const squid = await ctx.backend.findSquid(ctx.signal, ctx.config.squidPath);
    if (!squid) throw engineUnavailableError(`engine squid: the squid binary recorded for ${name} is gone`);
    let owner: UserIds | undefined;
    if (ctx.isRoot()) {
      owner = await ctx.backend.userIds(ctx.signal, SQUID_USER);
      if (!owner) {
        throw engineUnavailableError(
          `engine squid: running as root, Squid needs the user ${SQUID_USER}, which does not exist`,
        );
      }
    }
    const conf = squidConf({
      ...common,
      bindAddress,
      runtimeDir,
      ...(owner ? { effectiveUser: SQUID_USER } : {}),
    });
    return {
      command: squid,
      args: squidArgs(runtimeDir),
      files: { [SQUID_CONF]: conf },
      ...(owner ? { owner } : {}),
    };
  }
  let runner: string;
  try {
    runner = nodeRunnerPath();
  } catch (err) {
    throw engineUnavailableError(err instanceof Error ? err.message : String(err));
  }
  return {
    command: process.execPath,
    args: nodeArgs(runtimeDir, runner),
    files: {
      [NODE_PROXY_CONF]: nodeProxyConf({
        ...common,
        host: bindAddress,
        ...(record.egressIpv6Prefix ? { ipv6Prefix: record.egressIpv6Prefix } : {}),
      }),
    },
  };
}

/** The end of the engine's error log, for the error of a process that exited at start. */
async function lastLogLines(ctx: Context, name: string, record: InstanceRecord): Promise<string | undefined> {
  const file = record.engine === 'squid' ? 'cache.log' : 'stderr.log';
  try {
    const text = await ctx.pollBackend.tailLog(ctx.signal, name, file, 600);
    const all = (text ?? '')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    // Squid ends its log with shutdown statistics; the line that says why is its FATAL one.
    const fatal = all.filter((l) => l.includes('FATAL'));
    const lines = (fatal.length > 0 ? fatal : all).slice(-3).join(' | ');
    return lines || undefined;
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    return undefined;
  }
}

/** Waits until the instance's port accepts; fails fast when its process exits. */
async function waitReady(ctx: Context, name: string, record: InstanceRecord): Promise<void> {
  const runtimeDir = ctx.paths.runtimeDir(name);
  const host = connectAddress(record, ctx.config.bindAddress);
  const port = record.port as number;
  const ready = await pollUntil(ctx, ctx.timing.readyTimeoutMs, async () => {
    const info = await ctx.pollBackend.inspect(ctx.signal, record.pid as number);
    if (!isOurProcess(info, record, runtimeDir)) {
      throw processExitedError(name, runtimeDir, await lastLogLines(ctx, name, record));
    }
    if (!listensOn(info, port)) return false;
    try {
      return await ctx.pollBackend.probePort(ctx.signal, host, port);
    } catch (err) {
      if (ctx.signal?.aborted) throw err;
      return false;
    }
  });
  if (!ready) {
    throw transientError(
      `the proxy of ${name} did not accept connections on ${host}:${port} within ${ctx.timing.readyTimeoutMs} ms`,
      { code: ErrorCode.Timeout },
    );
  }
}

/**
 * Makes the instance's process run and accept: returns at once when its own process is alive
 * (after waiting for its port), otherwise allocates a port, writes the engine config, spawns
 * the process, records its pid and start time, and waits for the port. Returns the record as
 * written.
 */
export async function ensureRunning(
  ctx: Context,
  name: string,
  record: InstanceRecord,
  preferredPort: number | undefined,
): Promise<InstanceRecord> {
  if (record.pid && record.port && (await processRuns(ctx, name, record))) {
    await waitReady(ctx, name, record);
    return record;
  }
  await stopStrays(ctx, name);
  const taken = new Set<number>();
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePort(ctx, name, record, preferredPort, taken);
    } catch (err) {
      if (!(err instanceof PortTaken)) throw err;
      if (attempt >= PORT_ATTEMPTS) throw err.cause;
      taken.add(err.port);
      ctx.logger.log(1, 'local proxy port taken by another process, trying another', {
        name,
        port: err.port,
        attempt,
      });
    }
  }
}

/** Our process died before it listened and its port is held now: someone bound it after our probe. */
class PortTaken {
  constructor(
    readonly port: number,
    readonly cause: unknown,
  ) {}
}

async function startOnFreePort(
  ctx: Context,
  name: string,
  record: InstanceRecord,
  preferredPort: number | undefined,
  taken: ReadonlySet<number>,
): Promise<InstanceRecord> {
  const release = await ctx.locks.acquire(PORT_LOCK, { signal: ctx.signal });
  let port: number;
  try {
    port = await allocatePort(ctx, name, record.port ?? preferredPort, taken);
    ctx.reservedPorts.add(port);
  } finally {
    release();
  }
  try {
    const engine = record.engine ?? (await resolveEngine(ctx));
    const base: InstanceRecord = { ...record, engine, port };
    delete base.pid;
    delete base.startTime;
    const spec = await launchSpec(ctx, name, base, port);
    ctx.logger.log(2, 'local proxy launching', {
      name,
      engine,
      port,
      bindAddress: base.bindAddress ?? ctx.config.bindAddress,
      localAddress: base.localAddress,
      ipv6Prefix: base.egressIpv6Prefix,
      files: Object.keys(spec.files),
    });
    const runtimeDir = await ctx.backend.writeRuntime(ctx.signal, name, spec.files, spec.owner);
    const spawned = await ctx.backend.spawn(ctx.signal, {
      command: spec.command,
      args: spec.args,
      runtimeDir,
    });
    const running: InstanceRecord = { ...base, pid: spawned.pid, startTime: spawned.startTime };
    try {
      await ctx.backend.writeState(ctx.signal, name, encodeState(running));
    } catch (err) {
      // Unrecorded, it would run until the next create or delete of this name found it; we
      // spawned it a moment ago, so the pid is certainly ours to kill.
      await ctx.backend.kill(undefined, spawned.pid, 'SIGKILL').catch(() => {});
      throw err;
    }
    ctx.logger.log(2, 'local proxy spawned', { name, pid: spawned.pid, port });
    try {
      await waitReady(ctx, name, running);
    } catch (err) {
      if (
        err instanceof ProviderError &&
        err.code === LocalErrorCode.ProcessExited &&
        !(await ctx.backend.portFree(ctx.signal, ctx.config.bindAddress, port))
      )
        throw new PortTaken(port, err);
      throw err;
    }
    return running;
  } finally {
    ctx.reservedPorts.delete(port);
  }
}
