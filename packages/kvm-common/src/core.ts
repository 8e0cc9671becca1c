import {
  type CallOptions,
  ErrorCode,
  type Logger,
  loggerOf,
  permanentError,
  throwIfAborted,
  traceFields,
  wrapError,
} from '@egress-proxies/contract';
import type { KeyedLock } from '@egress-proxies/keyedlock';
import type { Tracer } from '@opentelemetry/api';
import type { BackendCallOptions } from './backend.js';
import type { KvmConfig, KvmHost } from './config.js';
import { race } from './detach.js';
import { classify, KvmErrorCode, type Phase } from './errors.js';
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
  readonly pollIntervalMs: number;
  readonly startTimeoutMs: number;
  readonly progressIntervalMs: number;
  readonly now: () => Date;
  closed: boolean;
}

/** One operation: the caller's signal and a logger naming the provider. */
export interface Op {
  readonly signal?: AbortSignal;
  readonly log: Logger;
  /** Options for a seam call made by this operation. */
  readonly call: BackendCallOptions;
  /** Waits until every backend call this operation started has ended (even the abandoned ones). */
  drain(): Promise<void>;
}

export function openOp(core: Core, opts: CallOptions | undefined, fields: Record<string, unknown> = {}): Op {
  // The caller's trace IDs on every line of the operation (a backend call's span overrides them).
  const log = loggerOf(opts).child({ provider: core.name, ...traceFields(), ...fields });
  const signal = opts?.signal;
  const pending = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    pending.add(work);
    const done = () => pending.delete(work);
    work.then(done, done);
  };
  return {
    ...(signal ? { signal } : {}),
    log,
    call: { ...(signal ? { signal } : {}), logger: log, track },
    async drain() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}

/**
 * Runs one contract operation: refuses after close, fails fast on an aborted signal, returns
 * promptly when the signal aborts mid-way, and wraps every error with the configured name.
 */
export async function runOp<T>(
  core: Core,
  operation: string,
  phase: Phase,
  op: Op,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    if (core.closed) throw permanentError('the provider is closed', { code: KvmErrorCode.Closed });
    throwIfAborted(op.signal);
    return await race(fn(), op.signal);
  } catch (err) {
    const wrapped = wrapError(core.name, operation, classify(phase, err));
    op.log.log(1, `${core.flavour.type} ${operation} failed`, {
      error: wrapped.reason,
      kind: wrapped.kind,
      code: wrapped.code,
    });
    throw wrapped;
  }
}

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
