import type { KeyedLock } from '@egress-proxies/keyedlock';
import type { OpContext } from '@egress-proxies/provider-utils';
import type { ComputeApi } from './backend.js';
import type { ResolvedGcpConfig } from './config.js';
import type { FirewallManager } from './firewall.js';
import type { OperationTracker } from './operations.js';

/** What every operation shares: built once per provider. */
export interface GcpState {
  /** The configured provider entry name. */
  name: string;
  cfg: ResolvedGcpConfig;
  api: ComputeApi;
  ops: OperationTracker;
  lock: KeyedLock<string>;
  firewall: FirewallManager;
  /** Where the Checker says it looked (the endpoint's host). */
  address: string;
  /** Aggregated-list page size. */
  listPageSize: number;
}

/** One call's context: the provider's state, the call's signal and logger. */
export interface Context extends OpContext, GcpState {}
