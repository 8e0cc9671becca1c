import type { KeyedLock } from '@egress-proxies/keyedlock';
import type { HostEgressPlan, OpContext } from '@egress-proxies/provider-utils';
import type { LocalBackend } from './backend.js';
import type { LocalConfig } from './config.js';
import type { StatePaths } from './paths.js';

/** Time budgets of one provider; each bounds a wait on the host, whatever the caller's signal. */
export interface Timing {
  /** How long create waits for a started proxy's port to accept connections. */
  readyTimeoutMs: number;
  /** How long delete waits after SIGTERM before it sends SIGKILL. */
  stopGraceMs: number;
  /** How long delete waits after SIGKILL before it gives up (Transient). */
  killWaitMs: number;
  /** The poll interval of those waits. */
  pollIntervalMs: number;
}

export const DEFAULT_TIMING: Timing = {
  readyTimeoutMs: 15_000,
  stopGraceMs: 5_000,
  killWaitMs: 3_000,
  pollIntervalMs: 50,
};

/** Everything one provider shares between its operations. */
export interface Shared {
  providerName: string;
  config: LocalConfig;
  /** The expanded egress plan, when the config has one. */
  egressPlan: HostEgressPlan | undefined;
  paths: StatePaths;
  timing: Timing;
  /** Serialises create and delete per instance name. */
  locks: KeyedLock<string>;
  /** Ports handed out by a create that has not finished yet (not bound by a process yet). */
  reservedPorts: Set<number>;
  /** The addresses of this host, for validating `placement.zone`. */
  localAddresses(): string[];
  /** Whether this process runs as root (Squid then drops to its own user). */
  isRoot(): boolean;
}

/** One operation's view: the shared state plus its observed backend, signal and logger. */
export interface Context extends OpContext, Shared {
  backend: LocalBackend;
  /** The same backend, logging each call at V2: for the calls of polling waits. */
  pollBackend: LocalBackend;
}
