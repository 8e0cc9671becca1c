import {
  ErrorCode,
  ErrorKind,
  type Instance,
  InstanceState,
  notFoundError,
  permanentError,
} from '@egress-proxies/contract';
import type { ComputeOperation } from './backend.js';
import { zoneConfigured } from './config.js';
import type { Context } from './context.js';
import { ComputeApiError, classify, classifyOperation } from './errors.js';
import { formatId, parseId } from './id.js';
import { isManaged, toInstance } from './to-instance.js';

/**
 * Reads one instance. When Compute says 404, the instance's newest insert operation decides:
 * failed -> that failure (QuotaExceeded or Permanent with the operation's message), still
 * running -> Provisioning, otherwise NotFound. An instance without the managed label is
 * NotFound: it is not ours.
 */
export async function getInstance(ctx: Context, id: string): Promise<Instance> {
  const { zone, name } = parseId(id);
  const { signal, logger } = ctx;
  if (!zoneConfigured(ctx.cfg, zone)) {
    throw permanentError(
      `zone ${zone} of ${id} is not one of the configured zones (${ctx.cfg.zones?.join(', ')})`,
      {
        code: ErrorCode.InvalidId,
      },
    );
  }
  try {
    const inst = await ctx.api.getInstance(signal, zone, name);
    if (!isManaged(inst)) throw notFoundError(`instance ${name} in ${zone} is not managed by this operator`);
    ctx.ops.instanceSeen(name);
    const out = toInstance(inst, zone, ctx.cfg.ipMode);
    logger.log(2, 'instance read', { id, status: inst.status, state: out.state, ip: out.ip });
    return out;
  } catch (err) {
    if (!(ComputeApiError.isInstance(err) && err.status === 404)) throw err;
  }
  let op: ComputeOperation | undefined;
  try {
    op = await ctx.ops.findInsert(signal, zone, name);
  } catch (err) {
    // A lookup that cannot work (no permission to read operations, an unknown zone) must not
    // hide that the instance is gone; a transient one must not claim it is.
    const c = classify(err);
    if (c.kind !== ErrorKind.Permanent && c.kind !== ErrorKind.NotFound) throw c;
    logger.log(1, 'insert operation lookup failed, reporting NotFound', { id, error: c.message });
  }
  if (op) {
    const failed = classifyOperation(op);
    if (failed) {
      logger.log(1, 'insert failed after it was accepted', { id, operation: op.name, kind: failed.kind });
      throw failed;
    }
    if (op.status !== 'DONE') {
      return { id: formatId(zone, name), uid: ctx.ops.uidOf(name) ?? '', state: InstanceState.Provisioning };
    }
  }
  throw notFoundError(`instance ${name} in ${zone} not found`);
}
