import { hostname } from 'node:os';
import { CheckReason, type CheckResult, isAbortError, ProviderError } from '@egress-proxies/contract';
import { raceAbort } from '@egress-proxies/provider-utils';
import type { Context } from './context.js';
import { resolveEngine } from './launch.js';

/** Reasons this provider adds to the shared ones. */
export const LocalCheckReason = {
  /** The state directory cannot be created or written. */
  StateDirUnwritable: 'StateDirUnwritable',
  /** The engine cannot run: Squid missing (engine squid) or `squid -v` fails, or the runner is missing. */
  EngineUnavailable: 'EngineUnavailable',
} as const;

/** How many ports are probed at once when counting the free ones. */
const PORT_PROBE_BATCH = 64;

/** The one target: this host. */
export function checkTarget(): string {
  return hostname();
}

class Failed extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * One round: the state directory is writable, the engine can run, and the port range has a free
 * port. `details` fills in as far as the round got.
 */
export async function checkHost(ctx: Context): Promise<CheckResult> {
  const { config } = ctx;
  const details: Record<string, string> = {
    stateDir: config.stateDir,
    bindAddress: config.bindAddress,
    portRange: `${config.portRange.min}-${config.portRange.max}`,
    configuredEngine: config.engine,
  };
  const result = (ready: boolean, reason: string, message: string): CheckResult => ({
    target: checkTarget(),
    address: config.bindAddress,
    ready,
    reason,
    message,
    details: { ...details },
  });
  const timedOut = () => result(false, CheckReason.Timeout, 'the check round ran out of time');
  if (ctx.signal?.aborted) return timedOut();

  const round = async (): Promise<CheckResult> => {
    try {
      await ctx.backend.probeStateDir(ctx.signal);
    } catch (err) {
      throw new Failed(
        LocalCheckReason.StateDirUnwritable,
        `state directory ${config.stateDir}: ${messageOf(err)}`,
      );
    }
    let engine: 'squid' | 'node';
    try {
      engine = await resolveEngine(ctx);
      details.engine = engine;
      const squidPath =
        engine === 'squid' ? await ctx.backend.findSquid(ctx.signal, config.squidPath) : undefined;
      if (squidPath) details.squidPath = squidPath;
      details.engineVersion = await ctx.backend.engineVersion(ctx.signal, engine, squidPath);
    } catch (err) {
      throw new Failed(LocalCheckReason.EngineUnavailable, `engine: ${messageOf(err)}`);
    }
    let free = 0;
    const { min, max } = config.portRange;
    for (let start = min; start <= max; start += PORT_PROBE_BATCH) {
      const batch: Promise<boolean>[] = [];
      for (let p = start; p <= Math.min(max, start + PORT_PROBE_BATCH - 1); p++) {
        batch.push(ctx.backend.portFree(ctx.signal, config.bindAddress, p));
      }
      for (const ok of await Promise.all(batch)) if (ok) free += 1;
    }
    details.freePorts = String(free);
    if (free === 0) {
      return result(
        false,
        CheckReason.QuotaExceeded,
        `no free port left in portRange ${min}-${max} on ${config.bindAddress}`,
      );
    }
    return result(
      true,
      CheckReason.Ready,
      `state directory writable, ${engine} engine available, ${free} free ports`,
    );
  };

  try {
    return await raceAbort(round(), ctx.signal);
  } catch (err) {
    if (ctx.signal?.aborted || isAbortError(err)) return timedOut();
    if (err instanceof Failed) return result(false, err.reason, err.message);
    return result(false, CheckReason.APIError, messageOf(err));
  }
}

function messageOf(err: unknown): string {
  if (ProviderError.isInstance(err)) return err.reason;
  return err instanceof Error ? err.message : String(err);
}
