import { InstanceState } from '@egress-proxies/contract';
import type { Context } from './context.js';
import { type LocalInstance, toInstance } from './instance.js';
import { processRuns } from './process.js';
import { decodeState } from './state-file.js';

/**
 * Every instance with our mark. One unreadable or foreign state file is skipped; the state comes
 * from the process check alone (no port probe): a live process of ours is Running.
 */
export async function listInstances(ctx: Context): Promise<LocalInstance[]> {
  const names = await ctx.backend.listStates(ctx.signal);
  const out: LocalInstance[] = [];
  for (const name of names) {
    const raw = await ctx.backend.readState(ctx.signal, name);
    if (raw === undefined) continue; // deleted between the listing and the read
    const decoded = decodeState(raw);
    if (decoded.kind !== 'marked') {
      ctx.logger.log(2, 'local state file skipped', { name, reason: decoded.reason });
      continue;
    }
    const runs = await processRuns(ctx, name, decoded.record);
    out.push(
      toInstance(
        name,
        decoded.record,
        runs ? InstanceState.Running : InstanceState.Stopped,
        ctx.config.bindAddress,
      ),
    );
  }
  ctx.logger.log(1, 'local proxies listed', { count: out.length });
  ctx.logger.log(2, 'local proxies listed detail', { names: out.map((i) => i.id) });
  return out;
}
