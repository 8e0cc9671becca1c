import type { StatusPageData, StatusPageMember } from '../status-page/page-data.js';
import type { StandalonePools } from './standalone-pools.js';

/** The status page's data under `up`: each pool's view, with when each cooldown ends. */
export function statusPageData(pools: StandalonePools, now = Date.now()): StatusPageData {
  return {
    updatedAt: new Date(now).toISOString(),
    pools: pools.views().map((v) => {
      const until = new Map(
        (pools.gateway(v.key)?.members.cooledDown() ?? []).map((c) => [c.member, c.until]),
      );
      return {
        pool: v.key,
        desired: v.desired,
        ready: v.ready,
        ...(v.gateway ? { gateway: v.gateway } : {}),
        ...(v.autoscale ? { autoscale: v.autoscale } : {}),
        members: v.members.map((m): StatusPageMember => {
          const assigned = [m.assignedEgress?.ipv4, m.assignedEgress?.ipv6, m.assignedEgress?.ipv6Prefix]
            .filter(Boolean)
            .join(', ');
          const ends = until.get(m.name);
          const host = m.ip?.includes(':') ? `[${m.ip}]` : m.ip;
          return {
            name: m.name,
            ...(m.provider ? { provider: m.provider } : {}),
            ...(m.ip ? { address: m.port ? `${host}:${m.port}` : (m.ip as string) } : {}),
            ...(assigned ? { assignedEgress: assigned } : {}),
            ...(m.egressIP ? { seenEgress: m.egressIP } : {}),
            ready: m.ready,
            cooledDown: m.cooledDown === true,
            ...(m.cooledDown && ends ? { cooledDownUntil: new Date(ends).toISOString() } : {}),
          };
        }),
      };
    }),
  };
}
