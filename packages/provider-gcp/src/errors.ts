import {
  ErrorCode,
  ErrorKind,
  isAbortError,
  ProviderError,
  permanentError,
  quotaExceededError,
} from '@egress-proxies/contract';
import type { ComputeOperation } from './backend.js';
import { CredentialsError } from './credentials-error.js';

/** Codes this provider adds to the contract's (documented in the README). */
export const GcpErrorCode = {
  /** The managed firewall rule exists but differs from what the config asks for. */
  FirewallMismatch: 'FIREWALL_MISMATCH',
  /** A Compute operation finished with an error Compute gave no classifiable status for. */
  OperationFailed: 'OPERATION_FAILED',
} as const;

const MARKER = Symbol.for('@egress-proxies/provider-gcp.ComputeApiError');

/** One entry of Compute's legacy `error.errors[]`. */
export interface ComputeErrorItem {
  reason?: string;
  message?: string;
  domain?: string;
}

/**
 * A non-2xx answer from the Compute API, with what classification needs: the HTTP status and
 * the `errors[].reason` list (the only place `quotaExceeded` can be told from other 403s).
 */
export class ComputeApiError extends Error {
  readonly [MARKER] = true;
  readonly code = 'COMPUTE_API_ERROR';
  readonly status: number;
  readonly reasons: readonly string[];
  /** `error.status` of the body (`RESOURCE_EXHAUSTED`, ...), when present. */
  readonly rpcStatus: string | undefined;
  /** `ErrorInfo.reason` from `error.details[]`, when present. */
  readonly errorInfoReason: string | undefined;

  constructor(options: {
    status: number;
    message: string;
    method: string;
    path: string;
    reasons?: string[];
    rpcStatus?: string;
    errorInfoReason?: string;
  }) {
    super(`${options.method} ${options.path}: HTTP ${options.status}: ${options.message}`);
    this.name = 'ComputeApiError';
    this.status = options.status;
    this.reasons = Object.freeze([...(options.reasons ?? [])]);
    this.rpcStatus = options.rpcStatus;
    this.errorInfoReason = options.errorInfoReason;
  }

  static isInstance(value: unknown): value is ComputeApiError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** Parses a Compute JSON error body into the fields `ComputeApiError` keeps; tolerant of any shape. */
export function parseErrorBody(text: string): {
  message: string;
  reasons: string[];
  rpcStatus?: string;
  errorInfoReason?: string;
} {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { message: text.slice(0, 200) || 'no error body', reasons: [] };
  }
  const err = (parsed as { error?: unknown })?.error;
  if (typeof err !== 'object' || err === null) {
    return { message: typeof err === 'string' ? err : 'unrecognised error body', reasons: [] };
  }
  const e = err as {
    message?: unknown;
    status?: unknown;
    errors?: unknown;
    details?: unknown;
  };
  const reasons = Array.isArray(e.errors)
    ? e.errors.map((x) => (x as ComputeErrorItem)?.reason).filter((r): r is string => typeof r === 'string')
    : [];
  let errorInfoReason: string | undefined;
  if (Array.isArray(e.details)) {
    for (const d of e.details) {
      const item = d as { '@type'?: unknown; reason?: unknown };
      if (typeof item?.['@type'] === 'string' && item['@type'].endsWith('google.rpc.ErrorInfo')) {
        if (typeof item.reason === 'string') errorInfoReason = item.reason;
      }
    }
  }
  return {
    message: typeof e.message === 'string' ? e.message : 'no error message',
    reasons,
    ...(typeof e.status === 'string' ? { rpcStatus: e.status } : {}),
    ...(errorInfoReason ? { errorInfoReason } : {}),
  };
}

const QUOTA_REASONS = new Set(['quotaExceeded', 'rateLimitExceeded', 'userRateLimitExceeded']);
const QUOTA_INFO_REASONS = new Set(['QUOTA_EXCEEDED', 'RATE_LIMIT_EXCEEDED']);

/**
 * Compute error -> contract error. Reasons first (they are what tells a quota 403 from a
 * permission 403), then the HTTP status: 404 NotFound; 429 QuotaExceeded; 400, 401 and other 403
 * Permanent; everything else (5xx, 409 outside Create, network) Transient.
 */
export function classify(err: unknown): ProviderError {
  if (ProviderError.isInstance(err)) return err;
  if (isAbortError(err)) {
    const timeout = (err as { name?: string }).name === 'TimeoutError';
    return new ProviderError({
      kind: ErrorKind.Transient,
      code: timeout ? ErrorCode.Timeout : ErrorCode.Aborted,
      message: timeout ? 'timed out' : 'aborted',
      cause: err,
    });
  }
  if (CredentialsError.isInstance(err)) {
    // A missing metadata server or a rotated key can come back: retry, slowly, not forever-fail.
    return new ProviderError({
      kind: ErrorKind.Transient,
      code: ErrorCode.CredentialsUnavailable,
      message: err.message,
      cause: err,
    });
  }
  if (ComputeApiError.isInstance(err)) {
    const details = { httpStatus: err.status, reasons: err.reasons.join(',') };
    const opts = { cause: err, details };
    if (
      err.reasons.some((r) => QUOTA_REASONS.has(r)) ||
      (err.errorInfoReason !== undefined && QUOTA_INFO_REASONS.has(err.errorInfoReason)) ||
      err.status === 429
    ) {
      return quotaExceededError(err.message, opts);
    }
    switch (err.status) {
      case 404:
        return new ProviderError({ kind: ErrorKind.NotFound, message: err.message, ...opts });
      case 400:
        return permanentError(err.message, { ...opts, code: ErrorCode.InvalidRequest });
      case 401:
        return permanentError(err.message, { ...opts, code: ErrorCode.AuthFailed });
      case 403:
        return permanentError(err.message, { ...opts, code: ErrorCode.Forbidden });
      default:
        return new ProviderError({
          kind: ErrorKind.Transient,
          code: ErrorCode.BackendError,
          message: err.message,
          ...opts,
        });
    }
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ProviderError({ kind: ErrorKind.Transient, code: ErrorCode.Unreachable, message, cause: err });
}

// Operation error codes that mean "out of capacity": retry later, slowly.
const QUOTA_OP_CODES = new Set([
  'QUOTA_EXCEEDED',
  'RATE_LIMIT_EXCEEDED',
  'ZONE_RESOURCE_POOL_EXHAUSTED',
  'ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS',
  'RESOURCE_EXHAUSTED',
]);

/**
 * A finished operation's error -> contract error: capacity and quota codes are QuotaExceeded,
 * anything else (a bad image, a missing network) Permanent with the operation's own message.
 * Returns undefined for an operation that is not done or did not fail.
 */
export function classifyOperation(op: ComputeOperation): ProviderError | undefined {
  if (op.status !== 'DONE') return undefined;
  const errors = op.error?.errors ?? [];
  if (errors.length === 0 && !(op.httpErrorStatusCode && op.httpErrorStatusCode >= 400)) return undefined;
  const codes = errors.map((e) => e.code ?? '').filter(Boolean);
  const text =
    errors
      .map((e) => e.message)
      .filter(Boolean)
      .join('; ') ||
    op.httpErrorMessage ||
    'operation failed';
  const message = `operation ${op.name} (${op.operationType ?? 'unknown'}) failed: ${text}`;
  const details = {
    operation: op.name,
    operationCodes: codes.join(','),
    ...(op.httpErrorStatusCode ? { httpStatus: op.httpErrorStatusCode } : {}),
  };
  if (codes.some((c) => QUOTA_OP_CODES.has(c)) || op.httpErrorStatusCode === 429) {
    return quotaExceededError(message, { details });
  }
  return permanentError(message, { details, code: GcpErrorCode.OperationFailed });
}
