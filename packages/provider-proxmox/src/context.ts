import type { KeyedLock } from '@egress-proxies/keyedlock';
import type { EgressPlan, OpContext } from '@egress-proxies/provider-utils';
import type { Backend } from './backend.js';
import type { ProxmoxConfig } from './config.js';
import type { KeyedLimiter } from './limiter.js';
import type { SeedInput } from './seed.js';

/** Time budgets; each task wait, lock wait and running wait is bounded by one of these. */
export interface Budgets {
  /** Interval between task, lock and status polls. */
  pollMs: number;
  /** Any task other than a clone. */
  taskMs: number;
  /**
   * A clone task, and how long after the newest clone task on the node started a clone lock is
   * reported as stuck (default 10 min).
   */
  cloneMs: number;
  /** How long Create waits for `running` after the start task. */
  runningMs: number;
  /** How long Create waits on a lock other than `clone`. */
  lockWaitMs: number;
  /** One Checker round per node. */
  checkMs: number;
}

/** Everything one provider call needs; built per call so the logger and signal are the caller's. */
export interface Context extends OpContext {
  provider: string;
  cfg: ProxmoxConfig;
  /** The backend, its calls logged to the call's logger. */
  api: Backend;
  /** Never absent here: a call without one gets a signal that never aborts. */
  signal: AbortSignal;
  budgets: Budgets;
  names: KeyedLock<string>;
  /** The compiled egress plans, by name. */
  plans: ReadonlyMap<string, EgressPlan>;
  /** One allocation at a time per plan in this process. */
  planLock: KeyedLock<string>;
  /** This process's picks whose clone has not written its mark yet. */
  pending: Pending;
  clones: KeyedLimiter;
  buildSeed: (i: SeedInput) => Uint8Array | Promise<Uint8Array>;
  now: () => number;
}

/**
 * Addresses handed out by a create in this process that no mark shows yet: PVE writes the
 * description (and with it the allocation) only when the clone task ends. A name's picks are
 * released when one of its creates succeeds (its mark holds them now) or its VM is destroyed,
 * and when a create fails before PVE accepted its clone. A create that fails after that (a
 * deadline or an abort while the clone runs) keeps them: the clone may still finish and write
 * the address into its mark, and handing it to another name meanwhile would give two VMs one
 * egress. The name's own retry may take its picks again.
 */
export interface Pending {
  /** Address to the name it was picked for. */
  addresses: Map<string, string>;
  /** Pinned MAC to the name it was picked for. */
  macs: Map<string, string>;
  /** Names with a clone PVE accepted whose outcome this process has not seen. */
  unsettled: Set<string>;
}
