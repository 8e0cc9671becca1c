import { isAbortError } from '@egress-proxies/contract';
import {
  allocate,
  compileEgressPlan,
  type EgressPlan,
  macAddressFor,
  networkConfigV2,
} from '@egress-proxies/provider-utils';
import { ErrorNumber } from 'libvirt-rpc-ts/codes';
import type { KvmBackend } from './backend.js';
import type { KvmConfig, KvmHost } from './config.js';
import type { Core, Op } from './core.js';
import { hasCode } from './errors.js';
import { parseMark } from './metadata.js';

/** The compiled plans of a validated config, by name. */
export function compilePlans(config: KvmConfig): ReadonlyMap<string, EgressPlan> {
  return new Map(Object.entries(config.egressPlans).map(([name, p]) => [name, compileEgressPlan(name, p)]));
}

/** What a planned create puts on its domain: the pinned MAC, the seed's network config, the mark's addresses. */
export interface PlannedNic {
  mac: string;
  networkConfig: string;
  egress: { ipv4?: string; ipv6?: string };
}

/**
 * What the host's marks say is held: each allocated address with its domain's name, and every
 * pinned MAC. The marks are the only record, so an address whose domain is gone is free again.
 * Stricter than listing: a mark that cannot be read fails the create (it may hold an address),
 * rather than risk handing that address out twice.
 */
async function heldOnHost(
  core: Core,
  b: KvmBackend,
  op: Op,
): Promise<{ addresses: Map<string, string>; macs: Set<string> }> {
  const doms = await b.connectListAllDomains(op.call);
  const addresses = new Map<string, string>();
  const macs = new Set<string>();
  await Promise.all(
    doms.map(async (d) => {
      let xml: string;
      try {
        xml = await b.domainGetMetadata(d, core.flavour.namespace, op.call);
      } catch (err) {
        if (op.signal?.aborted || isAbortError(err)) throw err;
        // Not ours, or gone since the listing: holds nothing.
        if (hasCode(err, ErrorNumber.VIR_ERR_NO_DOMAIN_METADATA, ErrorNumber.VIR_ERR_NO_DOMAIN)) return;
        throw err;
      }
      let mark: ReturnType<typeof parseMark>;
      try {
        mark = parseMark(xml);
      } catch {
        op.log.log(1, 'a domain mark does not parse; it holds no egress address', { name: d.name });
        return;
      }
      if (mark.egress?.ipv4) addresses.set(mark.egress.ipv4, d.name);
      if (mark.egress?.ipv6) addresses.set(mark.egress.ipv6, d.name);
      if (mark.mac) macs.add(mark.mac);
    }),
  );
  return { addresses, macs };
}

/**
 * Runs `define` with the instance's planned NIC when its host names an egress plan, under that
 * plan's lock: the held addresses are read from the marks, one is allocated, and `define` writes
 * it into the new domain's mark before the lock is released, so two creates in this process
 * never pick the same address. Nothing is stored in between: a crash before the define leaves
 * the address free. Without a plan, `define` gets undefined (DHCP, as before plans existed).
 */
export async function withPlannedNic<T>(
  core: Core,
  host: KvmHost,
  b: KvmBackend,
  name: string,
  op: Op,
  define: (nic: PlannedNic | undefined) => Promise<T>,
): Promise<T> {
  const plan = host.egressPlan ? core.plans.get(host.egressPlan) : undefined;
  if (!plan) return define(undefined);
  return core.planLock.withLock(
    `${host.name}/${plan.name}`,
    async () => {
      const held = await heldOnHost(core, b, op);
      const allocation = allocate(plan, name, held.addresses);
      const mac = macAddressFor(name, held.macs);
      const egress = {
        ...(allocation.ipv4 ? { ipv4: allocation.ipv4.address } : {}),
        ...(allocation.ipv6 ? { ipv6: allocation.ipv6.address } : {}),
      };
      op.log.log(1, 'egress allocated', { plan: plan.name, mac, ...egress });
      return define({ mac, networkConfig: networkConfigV2(mac, allocation), egress });
    },
    op.signal ? { signal: op.signal } : {},
  );
}
