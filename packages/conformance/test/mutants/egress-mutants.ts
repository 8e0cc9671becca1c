import {
  type CallOptions,
  type CreateRequest,
  type Instance,
  type InstanceEgress,
  isQuotaExceeded,
  type LogFields,
  transientError,
} from '@egress-proxies/contract';
import { allocate, type EgressAllocation, type EgressPlan } from '@egress-proxies/provider-utils';
import {
  type MarkReading,
  type OpContext,
  parseId,
  type ReferenceBackend,
  ReferenceProvider,
} from '../../src/reference/index.js';
import { KeyedLock } from '../../src/reference/keyed-lock.js';
import { sub } from './adoption-mutants.js';
import type { Mutant } from './mutants.js';

type Placed = Parameters<ReferenceProvider['createDetail']>[1];

class FirstAddressAlways extends ReferenceProvider {
  // The naive allocator: the plan's first address, whatever the marks hold.
  protected override async defineWithEgress(
    ctx: OpContext,
    req: CreateRequest,
    p: Placed,
    overlay: string,
    plan: EgressPlan,
  ): Promise<void> {
    await this.seedAndDefine(ctx, req, p, overlay, allocate(plan, 'any', new Map()));
  }
}

/** A keyed lock that lets the plan's key through unlocked (every other key locks as before). */
class PlanUnlocked extends KeyedLock {
  override run<T>(key: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return key.startsWith('\u0000') ? fn() : super.run(key, fn, signal);
  }
}

class AllocatesWithoutPlanLock extends ReferenceProvider {
  // Reads what is held and picks without holding the plan: concurrent creates read the same marks.
  protected override readonly locks: KeyedLock = new PlanUnlocked();
}

class ReusesAllocationOfCutCreate extends ReferenceProvider {
  // Keeps the allocation of a create that failed after picking, and reuses it on the retry
  // without asking whether someone took the address meanwhile.
  readonly #picked = new Map<string, EgressAllocation>();
  protected override async defineWithEgress(
    ctx: OpContext,
    req: CreateRequest,
    p: Placed,
    overlay: string,
    plan: EgressPlan,
  ): Promise<void> {
    const kept = this.#picked.get(req.name);
    if (kept) await this.seedAndDefine(ctx, req, p, overlay, kept);
    else await super.defineWithEgress(ctx, req, p, overlay, plan);
  }
  protected override async seedAndDefine(
    ctx: OpContext,
    req: CreateRequest,
    p: Placed,
    overlay: string,
    allocation: EgressAllocation | undefined,
  ): Promise<void> {
    if (allocation) this.#picked.set(req.name, allocation);
    await super.seedAndDefine(ctx, req, p, overlay, allocation);
  }
}

class NeverFreesAnAddress extends ReferenceProvider {
  // Counts every address it ever allocated as held, also after its instance was deleted.
  readonly #ever = new Map<string, string>();
  protected override async heldAddresses(ctx: OpContext, name: string): Promise<Map<string, string>> {
    const held = await super.heldAddresses(ctx, name);
    for (const [a, holder] of this.#ever) held.set(a, holder);
    return held;
  }
  protected override async seedAndDefine(
    ctx: OpContext,
    req: CreateRequest,
    p: Placed,
    overlay: string,
    allocation: EgressAllocation | undefined,
  ): Promise<void> {
    await super.seedAndDefine(ctx, req, p, overlay, allocation);
    for (const a of [allocation?.ipv4, allocation?.ipv6]) if (a) this.#ever.set(a.address, req.name);
  }
}

class FullPlanIsTransient extends ReferenceProvider {
  // Reports an exhausted plan as a passing condition to retry, which no retry will change.
  protected override async defineWithEgress(
    ctx: OpContext,
    req: CreateRequest,
    p: Placed,
    overlay: string,
    plan: EgressPlan,
  ): Promise<void> {
    try {
      await super.defineWithEgress(ctx, req, p, overlay, plan);
    } catch (err) {
      if (isQuotaExceeded(err)) throw transientError('no egress address free right now; try again');
      throw err;
    }
  }
}

/** A backend whose define drops the NIC's MAC: the backend picks its own. */
function macLessBackend(backend: ReferenceBackend): ReferenceBackend {
  return new Proxy(backend, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key !== 'defineDomain') return typeof value === 'function' ? value.bind(target) : value;
      return (host: string, spec: { macs?: string[] }, auth: unknown) => {
        const { macs: _dropped, ...rest } = spec;
        return (value as (...a: unknown[]) => unknown).call(target, host, rest, auth);
      };
    },
  });
}

class NicWithoutPlannedMac extends ReferenceProvider {
  // Writes the network-config for its own MAC but defines the NIC without it.
  constructor(o: ConstructorParameters<typeof ReferenceProvider>[0]) {
    super({ ...o, ...(o.backend ? { backend: macLessBackend(o.backend) } : {}) });
  }
}

/** A backend whose seed write drops the default gateways from the network-config. */
function gatewayLessBackend(backend: ReferenceBackend): ReferenceBackend {
  return new Proxy(backend, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key !== 'writeSeed') return typeof value === 'function' ? value.bind(target) : value;
      return (host: string, spec: { networkConfig?: string }, auth: unknown) => {
        if (spec.networkConfig === undefined)
          return (value as (...a: unknown[]) => unknown).call(target, host, spec, auth);
        const doc = JSON.parse(spec.networkConfig) as { ethernets?: Record<string, Record<string, unknown>> };
        for (const nic of Object.values(doc.ethernets ?? {})) {
          delete nic.gateway4;
          delete nic.gateway6;
          delete nic.routes;
        }
        const networkConfig = JSON.stringify(doc, null, 2);
        return (value as (...a: unknown[]) => unknown).call(target, host, { ...spec, networkConfig }, auth);
      };
    },
  });
}

class NetworkWithoutGateway extends ReferenceProvider {
  // Static addresses with no way out: the guest answers on its address but cannot reach the origin.
  constructor(o: ConstructorParameters<typeof ReferenceProvider>[0]) {
    super({ ...o, ...(o.backend ? { backend: gatewayLessBackend(o.backend) } : {}) });
  }
}

class KeepsAllocationsInMemory extends ReferenceProvider {
  // A local table of allocations (what a provider with a state file does): the mark's record is
  // written but never read, so a restarted provider knows nothing of what is held.
  readonly #table = new Map<string, InstanceEgress>();
  protected override readMark(metadata: string | undefined): MarkReading {
    const r = super.readMark(metadata);
    if (r.kind !== 'marked') return r;
    const { egress: _ignored, ...mark } = r.mark;
    return { kind: 'marked', mark };
  }
  protected override async heldAddresses(): Promise<Map<string, string>> {
    const held = new Map<string, string>();
    for (const [name, e] of this.#table) for (const a of Object.values(e)) held.set(a, name);
    return held;
  }
  protected override async seedAndDefine(
    ctx: OpContext,
    req: CreateRequest,
    p: Placed,
    overlay: string,
    allocation: EgressAllocation | undefined,
  ): Promise<void> {
    await super.seedAndDefine(ctx, req, p, overlay, allocation);
    if (allocation) {
      this.#table.set(req.name, {
        ...(allocation.ipv4 ? { ipv4: allocation.ipv4.address } : {}),
        ...(allocation.ipv6 ? { ipv6: allocation.ipv6.address } : {}),
      });
    }
  }
  #withEgress(i: Instance): Instance {
    const e = this.#table.get(parseId(i.id).name);
    return e ? { ...i, egress: e } : i;
  }
  override async get(id: string, opts?: CallOptions): Promise<Instance> {
    return this.#withEgress(await super.get(id, opts));
  }
  override async listByTag(opts?: CallOptions): Promise<Instance[]> {
    return (await super.listByTag(opts)).map((i) => this.#withEgress(i));
  }
  override async delete(id: string, opts?: CallOptions): Promise<void> {
    await super.delete(id, opts);
    this.#table.delete(parseId(id).name);
  }
}

class LogsThePlan extends ReferenceProvider {
  // Puts the plan's gateway into the create's detail line "to help debugging".
  protected override createDetail(req: CreateRequest, p: Placed): LogFields {
    return { ...super.createDetail(req, p), gateway: this.config.egressPlan?.ipv4?.gateway ?? '' };
  }
}

/** Mutants of the planned-egress rules; they run in the harness with `REFERENCE_EGRESS_PLAN`. */
export const EGRESS_MUTANTS: readonly Mutant[] = [
  {
    name: "allocation ignores the marks and takes the plan's first address",
    breaks: 'no two live instances share an egress address (axis: egress)',
    caughtBy: ['CREATE-24'],
    make: sub(FirstAddressAlways),
  },
  {
    name: 'concurrent creates allocate without holding the plan',
    breaks: 'concurrent creates in one process never collide (axis: egress)',
    caughtBy: ['CREATE-25'],
    make: sub(AllocatesWithoutPlanLock),
  },
  {
    name: 'a retried create reuses the allocation of its cut-off attempt',
    breaks: 'a create retried after a crash between allocation and instance never duplicates (axis: egress)',
    caughtBy: ['CREATE-26'],
    make: sub(ReusesAllocationOfCutCreate),
  },
  {
    name: "a deleted instance's address stays held",
    breaks: 'an address returns to the plan when its instance is deleted (axis: egress)',
    caughtBy: ['CREATE-27'],
    make: sub(NeverFreesAnAddress),
  },
  {
    name: 'an exhausted plan is reported Transient',
    breaks: 'an exhausted plan is QuotaExceeded naming the plan (axis: egress)',
    caughtBy: ['CREATE-28'],
    make: sub(FullPlanIsTransient),
  },
  {
    name: 'the NIC is defined without the MAC the network-config matches',
    breaks: "the seed's network-config is matched to the instance's NIC (axis: egress)",
    caughtBy: ['CREATE-29'],
    make: sub(NicWithoutPlannedMac),
  },
  {
    name: 'the network-config has no default gateway',
    breaks:
      "the seed's network-config routes the planned addresses through the plan's gateways (axis: egress)",
    caughtBy: ['CREATE-29'],
    make: sub(NetworkWithoutGateway),
  },
  {
    name: 'allocations are kept in memory, not read back from the mark',
    breaks: 'the allocation survives a restart with no local state (axis: egress)',
    caughtBy: ['GET-18'],
    make: sub(KeepsAllocationsInMemory),
  },
  {
    name: "the create's detail line carries the plan's gateway",
    breaks: 'the plan stays out of logs beyond the addresses (axis: egress)',
    caughtBy: ['OPS-21'],
    make: sub(LogsThePlan),
  },
];
