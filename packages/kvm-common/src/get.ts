import { type Instance, InstanceState, isAbortError, notFoundError } from '@egress-proxies/contract';
import { DomainInterfaceAddressesSource } from 'libvirt-rpc-ts/codes';
import type { Domain, KvmBackend } from './backend.js';
import { type Context, type Core, hostForId, type Op } from './core.js';
import { lookupDomain, readMark } from './domain-ops.js';
import type { AddressSource } from './flavour.js';
import { formatProviderId, parseProviderId } from './id.js';
import { firstIPv4, isUp, mapState, stateName } from './state.js';

const SOURCE: Record<AddressSource, number> = {
  agent: DomainInterfaceAddressesSource.AGENT,
  arp: DomainInterfaceAddressesSource.ARP,
  lease: DomainInterfaceAddressesSource.LEASE,
};

/**
 * The first routable IPv4 from the address sources in the flavour's order. A source that fails
 * is skipped (the address is simply not known yet); only the caller's abort is an error.
 */
export async function discoverAddress(
  core: Core,
  b: KvmBackend,
  dom: Domain,
  op: Op,
): Promise<string | undefined> {
  for (const source of core.flavour.addressOrder) {
    try {
      const ifs = await b.domainInterfaceAddresses(dom, SOURCE[source], op.call);
      const ip = firstIPv4(ifs);
      if (ip) {
        op.log.log(2, 'domain address', { source, address: ip });
        return ip;
      }
    } catch (err) {
      if (op.signal?.aborted || isAbortError(err)) throw err;
      op.log.log(2, 'address source failed', {
        source,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
  return undefined;
}

export async function getInstance(ctx: Context, id: string): Promise<Instance> {
  const { host: hostName, name } = parseProviderId(id);
  const host = hostForId(ctx, hostName, id);
  const b = await ctx.hosts.get(host, ctx.call);
  const dom = await lookupDomain(b, name, ctx);
  if (!dom) throw notFoundError(`domain ${name} does not exist on host ${host.name}`);
  const mark = await readMark(ctx, b, dom, ctx);
  if (!mark) throw notFoundError(`domain ${name} on host ${host.name} does not carry this provider's mark`);
  const { state } = await b.domainGetState(dom, ctx.call);
  const ip = isUp(state) ? await discoverAddress(ctx, b, dom, ctx) : undefined;
  const mapped = mapState(state, ip);
  ctx.log.log(1, `${ctx.flavour.type} domain fetched`, { state: mapped, libvirtState: stateName(state) });
  return {
    id: formatProviderId(host.name, name),
    uid: mark.uid,
    state: mapped,
    ...(mapped === InstanceState.Running && ip ? { ip } : {}),
    ...(mark.createdAt ? { createdAt: mark.createdAt } : {}),
    ...(mark.installation ? { installation: mark.installation } : {}),
    ...(mark.egress ? { egress: { ...mark.egress } } : {}),
  };
}
