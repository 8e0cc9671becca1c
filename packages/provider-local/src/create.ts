import { type CreateRequest, ErrorCode, permanentError } from '@egress-proxies/contract';
import { describeHostPlan, freeHostAddress } from '@egress-proxies/provider-utils';
import type { Context, Shared } from './context.js';
import { egressPlanExhaustedError, noFreeLoopbackAddressError } from './errors.js';
import { formatId, isValidName } from './id.js';
import { isIP } from './is-ip.js';
import { ensureRunning, resolveEngine } from './launch.js';
import {
  egressHolders,
  freeLoopbackAddress,
  LOOPBACK_EGRESS_LOCK,
  loopbackAddressesInUse,
} from './loopback-egress.js';
import { decodeState, encodeState, type InstanceRecord } from './state-file.js';

/** Checks a request before any host call; every problem is Permanent and names the value. */
export function validateRequest(shared: Shared, req: CreateRequest): void {
  const bad = (message: string) => permanentError(message, { code: ErrorCode.InvalidRequest });
  if (typeof req !== 'object' || req === null)
    throw bad(`create request must be an object, got ${String(req)}`);
  if (typeof req.name !== 'string' || !isValidName(req.name)) {
    throw bad(`name ${JSON.stringify(req.name)} is not a valid instance name (a DNS label)`);
  }
  if (typeof req.uid !== 'string') throw bad(`uid must be a string, got ${JSON.stringify(req.uid)}`);
  if (!Number.isInteger(req.port) || req.port < 1 || req.port > 65535) {
    throw bad(`port ${JSON.stringify(req.port)} is not a TCP port (1-65535)`);
  }
  const zone = req.placement?.zone;
  if (zone !== undefined && zone !== '') {
    if (isIP(zone) === 0 || !shared.localAddresses().includes(zone)) {
      throw permanentError(
        `placement.zone ${JSON.stringify(zone)} is not an address of this host (the zone is the local source address of the proxy's outgoing connections)`,
        { code: ErrorCode.InvalidPlacement },
      );
    }
  }
}

/**
 * Creates or adopts the instance for `req` and returns when its port accepts. The state file
 * (the mark) is written before the process starts, so a crash in between leaves something
 * `listByTag` finds.
 */
export async function createInstance(ctx: Context, req: CreateRequest): Promise<string> {
  validateRequest(ctx, req);
  const { name } = req;
  ctx.logger.log(2, 'local create request', {
    name,
    namespace: req.namespace,
    proxyName: req.proxyName,
    port: req.port,
    zone: req.placement?.zone,
  });
  const release = await ctx.locks.acquire(name, { signal: ctx.signal });
  try {
    const raw = await ctx.backend.readState(ctx.signal, name);
    let record: InstanceRecord;
    let adopted = false;
    if (raw !== undefined) {
      const decoded = decodeState(raw);
      if (decoded.kind !== 'marked') {
        throw permanentError(
          `a state file for ${name} exists but is not ours (${decoded.reason}); it is left untouched`,
          {
            code: ErrorCode.UnmarkedInstance,
          },
        );
      }
      record = decoded.record;
      if (record.uid !== '' && record.uid !== req.uid) {
        throw permanentError(
          `instance ${name} belongs to another Proxy (uid ${record.uid}); it is left untouched`,
          {
            code: ErrorCode.ForeignInstance,
          },
        );
      }
      adopted = true;
      if (record.uid === '') {
        record = { ...record, uid: req.uid };
        await ctx.backend.writeState(ctx.signal, name, encodeState(record));
      }
    } else {
      const engine = await resolveEngine(ctx);
      const zone = req.placement?.zone;
      const plan = ctx.egressPlan;
      const allocates = !zone && (ctx.config.loopbackEgress || (plan !== undefined && plan.ipv4.length > 0));
      const egress = allocates
        ? await ctx.locks.acquire(LOOPBACK_EGRESS_LOCK, { signal: ctx.signal })
        : undefined;
      try {
        record = {
          uid: req.uid,
          createdAt: new Date(),
          ...(req.installation ? { installation: req.installation } : {}),
          ...(req.namespace ? { namespace: req.namespace } : {}),
          ...(req.proxyName ? { proxyName: req.proxyName } : {}),
          engine,
          bindAddress: ctx.config.bindAddress,
          ...(zone ? { localAddress: zone } : {}),
          ...(plan?.ipv6Prefix ? { egressIpv6Prefix: plan.ipv6Prefix } : {}),
        };
        if (egress && plan && plan.ipv4.length > 0) {
          const holders = await egressHolders(ctx);
          const address = freeHostAddress(plan, new Set(holders.keys()));
          if (!address) {
            const inPlan = new Map([...holders].filter(([a]) => plan.ipv4.includes(a)));
            throw egressPlanExhaustedError(
              ctx.providerName,
              describeHostPlan(plan),
              plan.ipv4.length,
              inPlan,
            );
          }
          record.localAddress = address;
        } else if (egress) {
          const address = freeLoopbackAddress(await loopbackAddressesInUse(ctx));
          if (!address) throw noFreeLoopbackAddressError();
          record.localAddress = address;
        }
        // Written before the lock goes, so the next create sees this address as taken.
        await ctx.backend.writeState(ctx.signal, name, encodeState(record));
      } finally {
        egress?.();
      }
    }
    const running = await ensureRunning(ctx, name, record, req.port);
    ctx.logger.log(1, adopted ? 'local proxy adopted' : 'local proxy created', {
      name,
      id: formatId(name),
      engine: running.engine,
      port: running.port,
      pid: running.pid,
    });
    return formatId(name);
  } finally {
    release();
  }
}
