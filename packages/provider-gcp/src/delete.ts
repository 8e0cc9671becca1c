import { ErrorCode, ErrorKind, type Logger, transientError } from '@egress-proxies/contract';
import type { ComputeInstance, ComputeOperation } from './backend.js';
import { zoneConfigured } from './config.js';
import type { Context } from './context.js';
import { ComputeApiError, classify, classifyOperation } from './errors.js';
import { parseId } from './id.js';
import { derivedRequestId } from './labels.js';
import { isManaged } from './to-instance.js';

/**
 * Submits the delete and returns (delete-return: returns-early). Absent is success. A delete
 * already running for this instance is not submitted again: known in-process by its operation,
 * and across restarts by the request ID, derived from the instance's numeric ID, which Compute
 * answers with the running operation.
 */
export async function deleteInstance(ctx: Context, id: string): Promise<void> {
  const { zone, name } = parseId(id);
  const { signal, logger } = ctx;
  if (!zoneConfigured(ctx.cfg, zone)) {
    // Nothing this entry manages can be there; the Proxy must still be deletable.
    logger.log(1, 'delete: zone is not configured, nothing to do', { id });
    return;
  }
  try {
    await deleteLocked(ctx, zone, name, id, signal, logger);
  } catch (err) {
    // Absent is success, so a NotFound here is about something else (an operation that
    // vanished): worth a retry, never "the instance is gone".
    const c = classify(err);
    if (c.kind === ErrorKind.NotFound) {
      throw transientError(c.reason, { code: ErrorCode.BackendError, cause: err, details: { ...c.details } });
    }
    throw c;
  }
}

async function deleteLocked(
  ctx: Context,
  zone: string,
  name: string,
  id: string,
  signal: AbortSignal | undefined,
  logger: Logger,
): Promise<void> {
  await ctx.lock.withLock(
    name,
    async () => {
      let inst: ComputeInstance;
      try {
        inst = await ctx.api.getInstance(signal, zone, name);
      } catch (err) {
        if (ComputeApiError.isInstance(err) && err.status === 404) {
          ctx.ops.forget(zone, name);
          logger.log(1, 'delete: already gone', { id });
          return;
        }
        throw err;
      }
      if (!isManaged(inst)) {
        logger.log(1, 'delete: instance is not managed by this operator, left alone', { id });
        return;
      }
      const key = `${zone}/${name}/${inst.id ?? inst.creationTimestamp ?? ''}`;
      let salt = '';
      const pending = ctx.ops.pendingDelete(key);
      const prior = pending ? await operationOrGone(ctx, signal, zone, pending) : undefined;
      if (pending && !prior) ctx.ops.clearDelete(key);
      if (prior) {
        if (prior.status !== 'DONE') {
          logger.log(1, 'delete: already in progress', { id, operation: prior.name });
          return;
        }
        ctx.ops.clearDelete(key);
        if (classifyOperation(prior)) {
          logger.log(1, 'delete: previous delete failed, submitting again', { id, operation: prior.name });
        }
        salt = prior.name;
      }
      const incarnation = inst.id ?? inst.creationTimestamp ?? '';
      let op: ComputeOperation | undefined;
      for (let attempt = 0; ; attempt++) {
        const requestId = derivedRequestId('delete', zone, name, incarnation, salt);
        op = await ctx.api.deleteInstance(signal, zone, name, requestId).catch((err: unknown) => {
          if (ComputeApiError.isInstance(err) && err.status === 404) return undefined;
          throw err;
        });
        if (!op) {
          ctx.ops.forget(zone, name);
          return;
        }
        const failed = classifyOperation(op);
        if (!failed) break;
        // A failed operation in the answer is normally Compute replaying an earlier delete under
        // this request ID; one more attempt under a new one, then the failure is the answer.
        if (attempt >= 1) throw failed;
        salt = op.name;
      }
      ctx.ops.recordDelete(key, op.name);
      logger.log(1, 'delete submitted', { id, operation: op.name });
    },
    signal ? { signal } : {},
  );
}

/** The operation, or undefined once Compute no longer keeps it. */
async function operationOrGone(
  ctx: Context,
  signal: AbortSignal | undefined,
  zone: string,
  name: string,
): Promise<ComputeOperation | undefined> {
  try {
    return await ctx.api.getZoneOperation(signal, zone, name);
  } catch (err) {
    if (ComputeApiError.isInstance(err) && err.status === 404) return undefined;
    throw err;
  }
}
