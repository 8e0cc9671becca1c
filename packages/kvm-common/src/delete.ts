import { DomainUndefineFlags, ErrorNumber } from 'libvirt-rpc-ts/codes';
import type { KvmHost } from './config.js';
import type { Context, Core, Op } from './core.js';
import { findHost } from './core.js';
import { lookupDomain, readMark } from './domain-ops.js';
import { hasCode } from './errors.js';
import { parseProviderId } from './id.js';
import { deleteVolumeIfPresent, lookupPoolIfPresent } from './image.js';
import { overlayName, seedName } from './names.js';

export const UNDEFINE_FLAGS =
  DomainUndefineFlags.NVRAM | DomainUndefineFlags.MANAGED_SAVE | DomainUndefineFlags.SNAPSHOTS_METADATA;

/**
 * Destroy, undefine (NVRAM, managed save, snapshot metadata) and remove the overlay and seed by
 * name; each already-gone answer is success. A domain without our mark is left alone.
 */
export async function deleteInstance(ctx: Context, id: string): Promise<void> {
  const { host: hostName, name } = parseProviderId(id);
  const host = findHost(ctx, hostName);
  if (!host) {
    ctx.log.log(1, 'host is no longer configured; nothing to delete', { host: hostName, name });
    return;
  }
  await ctx.nameLock.withLock(
    `${host.name}/${name}`,
    // Held until every step really ended, even one the caller stopped waiting for.
    () => removeAll(ctx, host, name, ctx).finally(() => ctx.drain()),
    ctx.signal ? { signal: ctx.signal } : {},
  );
}

function goneIsNull(err: unknown): null {
  if (hasCode(err, ErrorNumber.VIR_ERR_NO_DOMAIN)) return null;
  throw err;
}

async function removeAll(core: Core, host: KvmHost, name: string, op: Op): Promise<void> {
  const b = await core.hosts.get(host, op.call);
  const dom = await lookupDomain(b, name, op);
  // A domain removed by someone else between the lookup and the mark read: only its volumes are left.
  const mark = dom ? await readMark(core, b, dom, op).catch(goneIsNull) : undefined;
  if (dom && mark !== null) {
    if (!mark) {
      op.log.log(1, "domain does not carry this provider's mark; left untouched", { host: host.name, name });
      return;
    }
    try {
      await b.domainDestroy(dom, op.call);
    } catch (err) {
      if (!hasCode(err, ErrorNumber.VIR_ERR_OPERATION_INVALID, ErrorNumber.VIR_ERR_NO_DOMAIN)) throw err;
    }
    try {
      await b.domainUndefineFlags(dom, UNDEFINE_FLAGS, op.call);
    } catch (err) {
      if (!hasCode(err, ErrorNumber.VIR_ERR_NO_DOMAIN)) throw err;
    }
  }
  const pool = await lookupPoolIfPresent(b, host.pool, op);
  if (!pool) {
    op.log.log(1, `${core.flavour.type} domain deleted`, { host: host.name, name, pool: 'missing' });
    return;
  }
  await deleteVolumeIfPresent(b, pool, overlayName(name), op);
  await deleteVolumeIfPresent(b, pool, seedName(name), op);
  op.log.log(1, `${core.flavour.type} domain deleted`, { host: host.name, name });
}
