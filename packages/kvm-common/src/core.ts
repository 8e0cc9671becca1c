import { ErrorCode, type Logger, permanentError } from '@egress-proxies/contract';
import type { KeyedLock } from '@egress-proxies/keyedlock';
import type { EgressPlan, OpContext, OperationCall } from '@egress-proxies/provider-utils';
import type { Tracer } from '@opentelemetry/api';
import type { BackendCallOptions } from './backend.js';
import type { KvmConfig, KvmHost } from './config.js';
import type { Phase } from './errors.js';
import type { KvmFlavour } from './flavour.js';
import type { HostTable } from './hosts.js';
import type { ImageFetcher } from './http-fetcher.js';

/** What every operation shares: the configured entry, its connections and its locks. */
export interface Core {
  readonly name: string;
  readonly flavour: KvmFlavour;
  readonly config: KvmConfig;
  readonly hosts: HostTable;
  readonly fetcher: ImageFetcher;
  readonly tracer?: Tracer;
  /** Serialises create and delete of one instance name. */
  readonly nameLock: KeyedLock<string>;
  /** Serialises fetching one base image on one host. */
  readonly imageLock: KeyedLock<string>;
  /** The config's egress plans, compiled. */
  readonly plans: ReadonlyMap<string, EgressPlan>;
  /** Serialises allocate-and-define on one host's egress plan. */
  readonly planLock: KeyedLock<string>;
  readonly pollIntervalMs: number;
  readonly startTimeoutMs: number;
  readonly progressIntervalMs: number;
  readonly now: () => Date;
}

/** One operation: the caller's signal and a logger naming the provider. */
export interface Op {
  readonly signal: AbortSignal | undefined;
  readonly log: Logger;
  /** Options for a seam call made by this operation. */
  readonly call: BackendCallOptions;
  /** Waits until every backend call this operation started has ended (even the abandoned ones). */
  drain(): Promise<void>;
}

/** An operation's Op from the runner's call: its signal, its logger, and the tracking of its backend calls. */
export function openOp(call: Pick<OperationCall, 'signal' | 'logger'>): Op {
  const { signal, logger: log } = call;
  const pending = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    pending.add(work);
    const done = () => pending.delete(work);
    work.then(done, done);
  };
  return {
    signal,
    log,
    call: { ...(signal ? { signal } : {}), logger: log, track },
    async drain() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}

/** The classification phase of each contract operation. */
export const PHASES: Readonly<Record<string, Phase>> = {
  create: 'create',
  get: 'get',
  delete: 'delete',
  listByTag: 'list',
  listSecondary: 'secondary',
  deleteSecondary: 'secondary',
  check: 'check',
};

/**
 * One call's context: the provider's state (Core), the call's signal and logger (OpContext), and
 * the tracking of its backend calls (Op), so an op's helpers may take it as either.
 */
export interface Context extends OpContext, Core, Op {}

/** The configured host called `name`, or undefined. */
export function findHost(core: Core, name: string): KvmHost | undefined {
  return core.config.hosts.find((h) => h.name === name);
}

/** The host for an ID: an unconfigured host is Permanent `INVALID_ID`. */
export function hostForId(core: Core, name: string, id: string): KvmHost {
  const h = findHost(core, name);
  if (!h) {
    throw permanentError(
      `provider ID ${JSON.stringify(id)} names host ${JSON.stringify(name)}, which is not configured (configured: ${core.config.hosts.map((x) => x.name).join(', ')})`,
      { code: ErrorCode.InvalidId },
    );
  }
  return h;
}
