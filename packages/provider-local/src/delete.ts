import type { Context } from './context.js';
import { parseId } from './id.js';
import { stopProcess, stopStrays } from './process.js';
import { decodeState } from './state-file.js';

/**
 * Stops the instance's own process (identity verified first), then removes its runtime
 * directory and last its state file, so an interrupted delete is finished by the next one.
 * Absent, or not ours, is success and touches nothing.
 */
export async function deleteInstance(ctx: Context, id: string): Promise<void> {
  const name = parseId(id);
  const release = await ctx.locks.acquire(name, { signal: ctx.signal });
  try {
    const raw = await ctx.backend.readState(ctx.signal, name);
    if (raw === undefined) {
      ctx.logger.log(1, 'local proxy already absent', { name });
      return;
    }
    const decoded = decodeState(raw);
    if (decoded.kind !== 'marked') {
      ctx.logger.log(1, 'local state file is not ours; left untouched', { name, reason: decoded.reason });
      return;
    }
    await stopProcess(ctx, name, decoded.record);
    await stopStrays(ctx, name);
    await ctx.backend.removeRuntime(ctx.signal, name);
    await ctx.backend.removeState(ctx.signal, name);
    ctx.logger.log(1, 'local proxy deleted', { name, pid: decoded.record.pid });
  } finally {
    release();
  }
}
