import { ErrorCode, permanentError, type SecondaryResource } from '@egress-proxies/contract';
import type { KvmHost } from './config.js';
import { type Context, type Core, findHost, type Op } from './core.js';
import { lookupDomain } from './domain-ops.js';
import { formatSecondaryId, parseSecondaryId } from './id.js';
import { deleteVolumeIfPresent, lookupPoolIfPresent } from './image.js';
import { secondaryOf } from './names.js';

async function listHost(core: Core, host: KvmHost, op: Op): Promise<SecondaryResource[]> {
  const b = await core.hosts.get(host, op.call);
  const pool = await lookupPoolIfPresent(b, host.pool, op);
  if (!pool) return [];
  const [vols, doms] = await Promise.all([
    b.storagePoolListAllVolumes(pool, op.call),
    b.connectListAllDomains(op.call),
  ]);
  const live = new Set(doms.map((d) => d.name));
  const out: SecondaryResource[] = [];
  for (const v of vols) {
    const s = secondaryOf(v.name);
    if (!s || live.has(s.instance)) continue;
    out.push({ id: formatSecondaryId(host.name, v.name), kind: s.kind, instanceName: s.instance });
  }
  return out;
}

/**
 * Per-instance volumes (`proxy-*` overlays and seeds) with no domain of that name on the host:
 * what a crash between create steps leaves, so garbage collection can find it.
 */
export async function listSecondary(ctx: Context): Promise<SecondaryResource[]> {
  const perHost = await Promise.all(ctx.config.hosts.map((h) => listHost(ctx, h, ctx)));
  const all = perHost.flat();
  ctx.log.log(1, `${ctx.flavour.type} secondary resources listed`, { count: all.length });
  return all;
}

/**
 * Deletes one listed volume. Only per-instance volume names are accepted, and a volume whose
 * domain exists again (a create resumed since the listing) is left alone.
 */
export async function deleteSecondary(ctx: Context, id: string): Promise<void> {
  const { host: hostName, volume } = parseSecondaryId(id);
  const s = secondaryOf(volume);
  if (!s) {
    throw permanentError(`volume ${JSON.stringify(volume)} is not a per-instance volume`, {
      code: ErrorCode.InvalidId,
    });
  }
  const host = findHost(ctx, hostName);
  if (!host) {
    ctx.log.log(1, 'host is no longer configured; nothing to delete', { host: hostName, volume });
    return;
  }
  await ctx.nameLock.withLock(
    `${host.name}/${s.instance}`,
    async () => {
      const b = await ctx.hosts.get(host, ctx.call);
      if (await lookupDomain(b, s.instance, ctx)) {
        ctx.log.log(1, 'volume belongs to a live domain; left alone', { host: host.name, volume });
        return;
      }
      const pool = await lookupPoolIfPresent(b, host.pool, ctx);
      if (!pool) return;
      await deleteVolumeIfPresent(b, pool, volume, ctx);
      ctx.log.log(1, `${ctx.flavour.type} secondary resource deleted`, { host: host.name, volume });
    },
    ctx.signal ? { signal: ctx.signal } : {},
  );
}
