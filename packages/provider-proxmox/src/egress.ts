import {
  allocate,
  compileEgressPlan,
  type EgressAllocation,
  type EgressPlan,
  macAddressFor,
  networkConfigV2,
} from '@egress-proxies/provider-utils';
import type { ClusterResource } from './backend.js';
import { type ProxmoxConfig, planNameFor } from './config.js';
import type { Context, Pending } from './context.js';
import { isNotExist } from './errors.js';
import { type MarkEgress, parseDescription } from './marks.js';

const CONCURRENCY = 8;

/** The compiled plans of a validated config, by name. */
export function compilePlans(cfg: ProxmoxConfig): ReadonlyMap<string, EgressPlan> {
  return new Map(Object.entries(cfg.egressPlans).map(([name, p]) => [name, compileEgressPlan(name, p)]));
}

/** What a planned VM gets: the pinned MAC, the seed's network config, the mark's addresses. */
export interface PlannedNic {
  plan: string;
  mac: string;
  networkConfig: string;
  egress: MarkEgress;
  /** Set once PVE accepted the clone: from then on it may finish whatever becomes of the call. */
  cloneSubmitted?: boolean;
}

/** Forgets every pick made for `name`: its VM records them now, or no VM of it is left. */
export function releasePicks(pending: Pending, name: string): void {
  for (const [address, holder] of pending.addresses) if (holder === name) pending.addresses.delete(address);
  for (const [mac, holder] of pending.macs) if (holder === name) pending.macs.delete(mac);
  pending.unsettled.delete(name);
}

/** The plan a node's VMs allocate from, if the config names one. */
export function planFor(ctx: Context, node: string): EgressPlan | undefined {
  const name = planNameFor(ctx.cfg, node);
  return name ? ctx.plans.get(name) : undefined;
}

/**
 * What the marks say is held, cluster-wide (a plan may serve several nodes): each recorded
 * address with its VM's name, and every pinned MAC. Any VM in the VMID range is read, tagged or
 * not: a clone whose create crashed before its config call has no tag yet but holds its address.
 * A VM gone since the listing holds nothing; any other unreadable config fails the create
 * rather than risk handing its address out twice.
 */
async function heldInCluster(
  ctx: Context,
  resources: readonly ClusterResource[],
): Promise<{ addresses: Map<string, string>; macs: Set<string> }> {
  const { min, max } = ctx.cfg.vmidRange;
  const vms = resources.filter(
    (r) => r.type === 'qemu' && r.template !== 1 && r.vmid >= min && r.vmid <= max,
  );
  const addresses = new Map<string, string>();
  const macs = new Set<string>();
  // At most CONCURRENCY config reads in flight, as listByTag does: a big cluster is read in turns.
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < vms.length; i = next++) {
      const r = vms[i]!;
      let description: unknown;
      let name: unknown;
      try {
        const cfg = await ctx.api.vmConfig(ctx.signal, r.node, r.vmid);
        description = cfg.description;
        name = cfg.name;
      } catch (err) {
        if (isNotExist(err)) continue;
        throw err;
      }
      const mark = parseDescription(typeof description === 'string' ? description : undefined);
      if (!mark.managed) continue;
      const holder = typeof name === 'string' ? name : `VM ${r.vmid}`;
      if (mark.egress?.ipv4) addresses.set(mark.egress.ipv4, holder);
      if (mark.egress?.ipv6) addresses.set(mark.egress.ipv6, holder);
      if (mark.mac) macs.add(mark.mac);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, vms.length) }, worker));
  return { addresses, macs };
}

function egressOf(a: EgressAllocation): MarkEgress {
  return {
    ...(a.ipv4 ? { ipv4: a.ipv4.address } : {}),
    ...(a.ipv6 ? { ipv6: a.ipv6.address } : {}),
  };
}

/**
 * Runs `make` (the clone that writes the mark) with a fresh allocation when the node has a plan.
 * Under the plan's lock the held addresses are read from the marks plus this process's picks
 * that no mark shows yet; the pick is then reserved until `make` succeeds, when the mark holds
 * it, or fails before PVE accepted the clone (see `Pending` for a failure after that). A crash before the clone call leaves nothing allocated; after
 * it, a marked VM that a retried create adopts with its recorded address.
 */
export async function withAllocation<T>(
  ctx: Context,
  node: string,
  name: string,
  make: (nic: PlannedNic | undefined) => Promise<T>,
): Promise<T> {
  const plan = planFor(ctx, node);
  if (!plan) return make(undefined);
  const nic = await ctx.planLock.withLock(
    plan.name,
    async (): Promise<PlannedNic> => {
      // The picks are copied before the marks are read, not after: a create whose clone ends
      // while the marks are being read drops its pick then, and the listing read a moment
      // earlier need not show its VM yet; read afterwards, neither would hold its address.
      // Another name's picks are held; this name's own (kept from a failed attempt) are its to reuse.
      const picked = new Map(ctx.pending.addresses);
      const pickedMacs = new Map(ctx.pending.macs);
      const resources = await ctx.api.clusterResources(ctx.signal);
      const held = await heldInCluster(ctx, resources);
      for (const [address, holder] of picked) if (holder !== name) held.addresses.set(address, holder);
      for (const [mac, holder] of pickedMacs) if (holder !== name) held.macs.add(mac);
      const allocation = allocate(plan, name, held.addresses);
      const mac = macAddressFor(name, held.macs);
      const egress = egressOf(allocation);
      for (const a of Object.values(egress)) ctx.pending.addresses.set(a, name);
      ctx.pending.macs.set(mac, name);
      ctx.logger.log(1, 'egress allocated', { plan: plan.name, mac, ...egress });
      return { plan: plan.name, mac, networkConfig: networkConfigV2(mac, allocation), egress };
    },
    { signal: ctx.signal },
  );
  try {
    const made = await make(nic);
    releasePicks(ctx.pending, name);
    return made;
  } catch (err) {
    if (nic.cloneSubmitted) ctx.pending.unsettled.add(name);
    if (!ctx.pending.unsettled.has(name)) releasePicks(ctx.pending, name);
    throw err;
  }
}

/**
 * The NIC of a VM adopted with its mark: the recorded addresses and MAC, with the plan's
 * gateway, prefix length and DNS servers, so a retried create delivers the same address.
 * Undefined when the node has no plan or the mark records no allocation (made before the plan).
 */
export function nicFromMark(
  ctx: Context,
  node: string,
  egress: MarkEgress | undefined,
  mac: string | undefined,
): PlannedNic | undefined {
  const plan = planFor(ctx, node);
  if (!plan || !egress || !mac) return undefined;
  const allocation: EgressAllocation = { nameservers: plan.nameservers };
  if (egress.ipv4 && plan.ipv4)
    allocation.ipv4 = {
      address: egress.ipv4,
      prefixLength: plan.ipv4.prefixLength,
      gateway: plan.ipv4.gateway,
    };
  if (egress.ipv6 && plan.ipv6)
    allocation.ipv6 = {
      address: egress.ipv6,
      prefixLength: plan.ipv6.prefixLength,
      gateway: plan.ipv6.gateway,
    };
  return { plan: plan.name, mac, networkConfig: networkConfigV2(mac, allocation), egress };
}
