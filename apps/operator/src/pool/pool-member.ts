import type { ProxyObject } from '../api/proxy.js';
import type { PoolMemberStatus } from '../api/proxy-pool.js';

/**
 * Where a member listens: the port its provider allocated (status.port, for providers that run
 * several proxies on one address), else the one asked for (spec.port, its default when absent).
 */
export const memberPort = (p: ProxyObject): number => p.status?.port ?? p.spec.port ?? 3128;

/** A member is Ready while its Proxy is Ready and not being deleted. */
export const memberReady = (p: ProxyObject): boolean =>
  p.status?.phase === 'Ready' && !p.metadata.deletionTimestamp;

/** Where a Ready member is reached: the shape the gateway's member table takes, by structure. */
export interface MemberAddress {
  name: string;
  host: string;
  port: number;
}

/** A Ready member with an address, as the gateway routes through it. */
export function gatewayMember(p: ProxyObject): MemberAddress | undefined {
  if (!memberReady(p) || !p.status?.ip) return undefined;
  return { name: p.metadata.name, host: p.status.ip, port: memberPort(p) };
}

/**
 * A member as its pool lists it, from the member Proxy: the pool's status.members in the cluster
 * and the pool view under `up` show the same fields. `createdAt` defaults to the Proxy's
 * creationTimestamp (the file store has none: `up` passes the time the pool created it).
 */
export function poolMemberStatus(
  p: ProxyObject,
  o: { cooledDown: boolean; createdAt?: string; drainingSince?: number },
): PoolMemberStatus {
  const ip = p.status?.ip;
  const createdAt = o.createdAt ?? p.metadata.creationTimestamp;
  return {
    name: p.metadata.name,
    ...(p.spec.provider ? { provider: p.spec.provider } : {}),
    ...(ip ? { ip, port: memberPort(p) } : {}),
    ...(p.status?.egressIP ? { egressIP: p.status.egressIP } : {}),
    ...(p.status?.assignedEgress ? { assignedEgress: { ...p.status.assignedEgress } } : {}),
    ...(createdAt ? { createdAt } : {}),
    ready: memberReady(p),
    cooledDown: o.cooledDown,
    ...(o.drainingSince !== undefined ? { drainingSince: new Date(o.drainingSince).toISOString() } : {}),
  };
}
