import type { KeyedLock } from '@egress-proxies/keyedlock';
import type { ComputeApi } from './backend.js';
import type { ResolvedGcpConfig } from './config.js';
import type { FirewallManager } from './firewall.js';
import type { OperationTracker } from './operations.js';

/** What every operation module needs: built once per provider. */
export interface GcpContext {
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
