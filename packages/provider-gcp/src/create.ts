import {
  type CreateRequest,
  ErrorCode,
  ErrorKind,
  type Logger,
  permanentError,
  transientError,
  UID_LABEL,
} from '@egress-proxies/contract';
import type { ComputeInstance, ComputeOperation } from './backend.js';
import type { Context } from './context.js';
import { ComputeApiError, classify, classifyOperation } from './errors.js';
import { formatId } from './id.js';
import { buildInstanceBody, redactedBody } from './instance-body.js';
import { derivedRequestId, labelValue } from './labels.js';
import { checkMachineTypeZone, validateCreateRequest } from './placement.js';
import { isManaged } from './to-instance.js';

/**
 * Submits the insert and returns the ID without waiting for the machine (create-return:
 * submit). The request ID is derived from the UID and name, so a retried Create is answered by
 * Compute with the first operation instead of a second machine. When that answer is an insert
 * that already failed, the next request ID is derived from the failed operation's name: a new
 * attempt, still deterministic (and after several failures in a row, from the last of them).
 */
export async function createInstance(ctx: Context, req: CreateRequest): Promise<string> {
  const placement = validateCreateRequest(req, ctx.cfg);
  checkMachineTypeZone(placement.machineType, placement.zone);
  const { signal, logger } = ctx;
  const id = formatId(placement.zone, req.name);
  try {
    return await ctx.lock.withLock(
      req.name,
      async () => {
        await ctx.firewall.ensure(signal, req.port, logger);
        const body = buildInstanceBody(ctx.cfg, req, placement);
        if (logger.verbosity >= 2) logger.log(2, 'insert request', { id, body: redactedBody(body) });
        return submit(ctx, req, placement.zone, body, signal, logger, id);
      },
      signal ? { signal } : {},
    );
  } catch (err) {
    // Something vanishing mid-create (an operation, the instance between insert and read) is
    // worth retrying; NotFound is reserved for Get, where it means "the instance is gone".
    const c = classify(err);
    if (c.kind === ErrorKind.NotFound) {
      throw transientError(c.reason, { code: ErrorCode.BackendError, cause: err, details: { ...c.details } });
    }
    throw c;
  }
}

async function submit(
  ctx: Context,
  req: CreateRequest,
  zone: string,
  body: ComputeInstance,
  signal: AbortSignal | undefined,
  logger: Logger,
  id: string,
): Promise<string> {
  let requestId = derivedRequestId('insert', req.uid, zone, req.name);
  for (let attempt = 0; ; attempt++) {
    let op: ComputeOperation;
    try {
      op = await ctx.api.insertInstance(signal, zone, body, requestId);
    } catch (err) {
      if (ComputeApiError.isInstance(err) && err.status === 409) {
        await adopt(ctx, signal, zone, req);
        logger.log(1, 'instance exists, adopted', { id });
        return id;
      }
      // A refusal that names the zone, machine type or image is the request's fault.
      if (ComputeApiError.isInstance(err) && (err.status === 404 || err.status === 400)) {
        const field = placementFieldOf(err.message);
        if (field) {
          throw permanentError(`placement.${field} was refused by Compute: ${err.message}`, {
            code: ErrorCode.InvalidPlacement,
            details: { field, httpStatus: err.status },
            cause: err,
          });
        }
      }
      throw err;
    }
    ctx.ops.recordInsert(zone, req.name, op.name, req.uid);
    const failed = classifyOperation(op);
    const replayed =
      failed !== undefined || (op.status === 'DONE' && !(await exists(ctx, signal, zone, req.name)));
    if (!replayed) {
      logger.log(1, 'insert submitted', { id, operation: op.name, status: op.status });
      return id;
    }
    // A finished operation in the insert's answer is normally Compute replaying an earlier
    // attempt under this request ID: failed, or succeeded for an instance deleted since. Try
    // again under a request ID derived from that operation: each failed attempt adds a link to
    // the chain, and a later create walks it to its first unused ID. A fresh insert is answered
    // with a running operation, so the walk ends at the first one; the bound is for the walk.
    if (attempt >= MAX_REPLAYS) {
      throw failed ?? transientError(`instance ${req.name} vanished right after its insert ${op.name}`);
    }
    logger.log(1, 'insert answered by an earlier operation, submitting anew', { id, operation: op.name });
    requestId = derivedRequestId('insert', req.uid, zone, req.name, op.name);
  }
}

/** How far a create follows the chain of earlier failed attempts' request IDs. */
const MAX_REPLAYS = 32;

async function exists(ctx: Context, signal: AbortSignal | undefined, zone: string, name: string) {
  try {
    await ctx.api.getInstance(signal, zone, name);
    return true;
  } catch (err) {
    if (ComputeApiError.isInstance(err) && err.status === 404) return false;
    throw err;
  }
}

/** A 409: the name exists. Ours (same or no UID) is success; anything else is refused. */
async function adopt(ctx: Context, signal: AbortSignal | undefined, zone: string, req: CreateRequest) {
  const existing = await ctx.api.getInstance(signal, zone, req.name);
  if (!isManaged(existing)) {
    throw permanentError(
      `instance ${req.name} in ${zone} exists without the managed label; not adopting it`,
      {
        code: 'UNMARKED_INSTANCE',
      },
    );
  }
  const uid = existing.labels?.[UID_LABEL] ?? '';
  if (uid !== '' && uid !== labelValue(req.uid)) {
    throw permanentError(`instance ${req.name} in ${zone} belongs to another proxy (uid ${uid})`, {
      code: 'FOREIGN_INSTANCE',
    });
  }
  ctx.ops.instanceSeen(req.name);
}

/** Which placement field a Compute refusal is about, from the resource path in its message. */
export function placementFieldOf(message: string): 'zone' | 'machineType' | 'image' | undefined {
  if (/machineTypes?\b/i.test(message)) return 'machineType';
  if (/\/images\/|sourceImage/i.test(message)) return 'image';
  if (/zones\/[a-z0-9-]+'/.test(message) || /field 'zone'/.test(message)) return 'zone';
  return undefined;
}
