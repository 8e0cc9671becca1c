import { notFoundError } from '@egress-proxies/contract';
import type { Context } from './context.js';
import { parseId } from './id.js';
import { type LocalInstance, toInstance } from './instance.js';
import { conditionOf } from './process.js';
import { stateOf } from './state.js';
import { decodeState } from './state-file.js';

/** Reads the state file, checks the process is ours and alive, then whether its port accepts. */
export async function getInstance(ctx: Context, id: string): Promise<LocalInstance> {
  const name = parseId(id);
  const raw = await ctx.backend.readState(ctx.signal, name);
  if (raw === undefined) throw notFoundError(`instance ${name} does not exist`);
  const decoded = decodeState(raw);
  if (decoded.kind !== 'marked') throw notFoundError(`instance ${name} is not ours (${decoded.reason})`);
  const condition = await conditionOf(ctx, name, decoded.record);
  const inst = toInstance(name, decoded.record, stateOf(condition), ctx.config.bindAddress);
  ctx.logger.log(1, 'local proxy fetched', { name, state: inst.state });
  ctx.logger.log(2, 'local proxy detail', {
    name,
    pid: decoded.record.pid,
    port: inst.port,
    ip: inst.ip,
    condition,
  });
  return inst;
}
