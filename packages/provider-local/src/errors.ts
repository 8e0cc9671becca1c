import {
  ErrorCode,
  ErrorKind,
  isAbortError,
  ProviderError,
  permanentError,
  quotaExceededError,
  transientError,
} from '@egress-proxies/contract';

/** Codes this provider adds to the contract's (see the README). */
export const LocalErrorCode = {
  /** No free port left in `portRange`. */
  NoFreePort: 'NO_FREE_PORT',
  /** `loopbackEgress`: every address 127.0.0.2-254 already belongs to another proxy. */
  NoFreeLoopbackAddress: 'NO_FREE_LOOPBACK_ADDRESS',
  /** Every IPv4 address of the egress plan belongs to another proxy. */
  EgressPlanExhausted: 'EGRESS_PLAN_EXHAUSTED',
  /** The proxy process exited before its port accepted connections. */
  ProcessExited: 'PROCESS_EXITED',
  /** The chosen engine cannot run here (Squid not installed, the runner missing). */
  EngineUnavailable: 'ENGINE_UNAVAILABLE',
} as const;

type Row = { kind: ErrorKind; code: string };

/** errno -> class. Anything not listed is Transient BACKEND_ERROR: unknown is safest retried. */
const ERRNO_TABLE: Record<string, Row> = {
  ENOSPC: { kind: ErrorKind.QuotaExceeded, code: ErrorCode.QuotaExceeded },
  EDQUOT: { kind: ErrorKind.QuotaExceeded, code: ErrorCode.QuotaExceeded },
  EACCES: { kind: ErrorKind.Permanent, code: ErrorCode.Forbidden },
  EPERM: { kind: ErrorKind.Permanent, code: ErrorCode.Forbidden },
  EROFS: { kind: ErrorKind.Permanent, code: ErrorCode.Forbidden },
  EBUSY: { kind: ErrorKind.Transient, code: ErrorCode.Busy },
  EAGAIN: { kind: ErrorKind.Transient, code: ErrorCode.Busy },
  ETXTBSY: { kind: ErrorKind.Transient, code: ErrorCode.Busy },
  EMFILE: { kind: ErrorKind.Transient, code: ErrorCode.Busy },
  ENFILE: { kind: ErrorKind.Transient, code: ErrorCode.Busy },
  ESTALE: { kind: ErrorKind.Transient, code: ErrorCode.Unreachable },
  ENOTCONN: { kind: ErrorKind.Transient, code: ErrorCode.Unreachable },
  EHOSTUNREACH: { kind: ErrorKind.Transient, code: ErrorCode.Unreachable },
  ECONNREFUSED: { kind: ErrorKind.Transient, code: ErrorCode.Unreachable },
  ETIMEDOUT: { kind: ErrorKind.Transient, code: ErrorCode.Timeout },
};

/** The errno string of a Node system error, if it is one. */
export function errnoOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}

/**
 * Classifies a failed backend step at the source. An abort and an already classified error pass
 * through (the boundary's `wrapError` finishes them); a Node system error goes through the table.
 * `ENOENT` is Transient here: the callers that read absence as "not found" check it first.
 */
export function classify(step: string, err: unknown): unknown {
  if (ProviderError.isInstance(err) || isAbortError(err)) return err;
  const errno = errnoOf(err);
  const row = (errno && ERRNO_TABLE[errno]) || { kind: ErrorKind.Transient, code: ErrorCode.BackendError };
  const message = `${step}: ${err instanceof Error ? err.message : String(err)}`;
  return new ProviderError({
    kind: row.kind,
    code: row.code,
    message,
    cause: err,
    details: { step, ...(errno ? { errno } : {}) },
  });
}

export const noFreePortError = (min: number, max: number) =>
  quotaExceededError(`no free port left in portRange ${min}-${max}`, {
    code: LocalErrorCode.NoFreePort,
    details: { portMin: min, portMax: max },
  });

export const noFreeLoopbackAddressError = () =>
  quotaExceededError(
    'loopbackEgress: every outgoing address 127.0.0.2-127.0.0.254 belongs to another proxy',
    {
      code: LocalErrorCode.NoFreeLoopbackAddress,
    },
  );

/** The plan, its size and who holds it: what a user needs to free an address or grow the plan. */
export const egressPlanExhaustedError = (
  provider: string,
  planDescription: string,
  size: number,
  holders: ReadonlyMap<string, string>,
) => {
  const list = [...holders].map(([address, name]) => `${name} (${address})`);
  const shown = list.length > 10 ? [...list.slice(0, 10), `and ${list.length - 10} more`] : list;
  return quotaExceededError(
    `egress plan of provider ${provider} is exhausted: all ${size} of its ${planDescription} are held by live proxies: ${shown.join(', ')}; delete one or add addresses to egress.ipv4`,
    {
      code: LocalErrorCode.EgressPlanExhausted,
      details: { planSize: size, holders: list.join(', ') },
    },
  );
};

export const processExitedError = (name: string, logDir: string, lastLog?: string) =>
  transientError(
    `the proxy process of ${name} exited before its port accepted connections; see the logs in ${logDir}${lastLog ? `; last log lines: ${lastLog}` : ''}`,
    { code: LocalErrorCode.ProcessExited },
  );

export const engineUnavailableError = (message: string) =>
  permanentError(message, { code: LocalErrorCode.EngineUnavailable });
