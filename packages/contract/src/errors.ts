/**
 * The four error classes of the contract. A provider classifies at the source, where it still
 * has the backend's codes and structured fields, and the reconciler decides what to do from the
 * class alone:
 * - NotFound: the instance does not exist (or is not ours). Get only; never during Create.
 * - Permanent: retrying the same request cannot help (bad placement, foreign instance, auth).
 * - Transient: retry with backoff (network, busy backend, timeouts, cancellation).
 * - QuotaExceeded: out of capacity or rate-limited; retry later, slowly.
 */
export const ErrorKind = {
  NotFound: 'NotFound',
  Permanent: 'Permanent',
  Transient: 'Transient',
  QuotaExceeded: 'QuotaExceeded',
} as const;

export type ErrorKind = (typeof ErrorKind)[keyof typeof ErrorKind];

/**
 * Stable codes. Each kind has a generic code; providers use the specific ones where they apply
 * and may add their own (upper snake case, documented in their README).
 */
export const ErrorCode = {
  NotFound: 'NOT_FOUND',
  Permanent: 'PERMANENT',
  Transient: 'TRANSIENT',
  QuotaExceeded: 'QUOTA_EXCEEDED',
  InvalidId: 'INVALID_ID',
  InvalidPlacement: 'INVALID_PLACEMENT',
  InvalidRequest: 'INVALID_REQUEST',
  InvalidConfig: 'INVALID_CONFIG',
  ForeignInstance: 'FOREIGN_INSTANCE',
  UnmarkedInstance: 'UNMARKED_INSTANCE',
  Aborted: 'ABORTED',
  Timeout: 'TIMEOUT',
  Unreachable: 'UNREACHABLE',
  Busy: 'BACKEND_BUSY',
  AuthFailed: 'AUTH_FAILED',
  Forbidden: 'FORBIDDEN',
  HostKeyRejected: 'HOST_KEY_REJECTED',
  CertificateInvalid: 'CERTIFICATE_INVALID',
  CredentialsUnavailable: 'CREDENTIALS_UNAVAILABLE',
  BackendError: 'BACKEND_ERROR',
  /** A call after `close()`. */
  ProviderClosed: 'PROVIDER_CLOSED',
} as const;

const defaultCode: Record<ErrorKind, string> = {
  NotFound: ErrorCode.NotFound,
  Permanent: ErrorCode.Permanent,
  Transient: ErrorCode.Transient,
  QuotaExceeded: ErrorCode.QuotaExceeded,
};

// Symbol.for, not Symbol(): two installed copies of this package must recognise each other's
// errors, so the marker lives in the global symbol registry.
const MARKER = Symbol.for('@egress-proxies/contract.ProviderError');

export interface ProviderErrorOptions {
  kind: ErrorKind;
  message: string;
  code?: string;
  /** The configured provider name; filled in by `wrapError` when a helper classified at the source. */
  provider?: string;
  /** The contract operation: create, get, delete, listByTag, check, ... */
  operation?: string;
  cause?: unknown;
  /** Structured facts (pool, available bytes, HTTP status). Never secrets. */
  details?: Record<string, string | number | boolean>;
}

export class ProviderError extends Error {
  readonly [MARKER] = true;
  readonly kind: ErrorKind;
  readonly code: string;
  readonly provider: string;
  readonly operation: string;
  readonly details: Readonly<Record<string, string | number | boolean>>;
  /** The message without the provider/operation prefix. */
  readonly reason: string;

  constructor(options: ProviderErrorOptions) {
    const provider = options.provider ?? '';
    const operation = options.operation ?? '';
    const prefix = [provider, operation].filter(Boolean).join(' ');
    super(prefix ? `${prefix}: ${options.message}` : options.message, { cause: options.cause });
    this.name = 'ProviderError';
    this.kind = options.kind;
    this.code = options.code ?? defaultCode[options.kind];
    this.provider = provider;
    this.operation = operation;
    this.details = Object.freeze({ ...(options.details ?? {}) });
    this.reason = options.message;
  }

  /** Whether retrying later can succeed: Transient and QuotaExceeded. */
  get retryable(): boolean {
    return this.kind === ErrorKind.Transient || this.kind === ErrorKind.QuotaExceeded;
  }

  /** True for a ProviderError from any installed copy of this package. */
  static isInstance(value: unknown): value is ProviderError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** Everything but kind and message: code, provider, operation, cause, details. */
type Extra = Omit<ProviderErrorOptions, 'kind' | 'message'>;

/** The instance does not exist or is not ours (Get only; inside Create use a Transient error). */
export const notFoundError = (message: string, extra: Extra = {}) =>
  new ProviderError({ ...extra, kind: ErrorKind.NotFound, message });
/** Retrying the same request cannot help: bad placement, a foreign instance, rejected credentials. */
export const permanentError = (message: string, extra: Extra = {}) =>
  new ProviderError({ ...extra, kind: ErrorKind.Permanent, message });
/** Retry with backoff: network, a busy or locked backend, an expired wait. */
export const transientError = (message: string, extra: Extra = {}) =>
  new ProviderError({ ...extra, kind: ErrorKind.Transient, message });
/** Out of capacity or rate-limited: retry later, slowly. */
export const quotaExceededError = (message: string, extra: Extra = {}) =>
  new ProviderError({ ...extra, kind: ErrorKind.QuotaExceeded, message });

const kindOf = (err: unknown, kind: ErrorKind) => ProviderError.isInstance(err) && err.kind === kind;
/** True for a NotFound ProviderError from any copy of this package. */
export const isNotFound = (err: unknown): boolean => kindOf(err, ErrorKind.NotFound);
/** True for a Permanent ProviderError from any copy of this package. */
export const isPermanent = (err: unknown): boolean => kindOf(err, ErrorKind.Permanent);
/** True for a Transient ProviderError from any copy of this package. */
export const isTransient = (err: unknown): boolean => kindOf(err, ErrorKind.Transient);
/** True for a QuotaExceeded ProviderError from any copy of this package. */
export const isQuotaExceeded = (err: unknown): boolean => kindOf(err, ErrorKind.QuotaExceeded);

/** True for an abort: a DOMException `AbortError`/`TimeoutError` or an error whose name says so. */
export function isAbortError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const name = (err as { name?: unknown }).name;
  return name === 'AbortError' || name === 'TimeoutError';
}

/**
 * Wraps any error for the contract boundary: an existing ProviderError keeps its kind and code
 * and gets the configured provider name and the operation; an abort becomes Transient `ABORTED`
 * (or `TIMEOUT` for an `AbortSignal.timeout`); anything else becomes Transient, since an
 * unclassified failure is safest retried.
 */
export function wrapError(provider: string, operation: string, err: unknown): ProviderError {
  if (ProviderError.isInstance(err)) {
    if (err.provider === provider && err.operation) return err;
    return new ProviderError({
      kind: err.kind,
      code: err.code,
      message: err.reason ?? err.message,
      provider,
      operation: err.operation || operation,
      cause: err.cause ?? err,
      details: { ...err.details },
    });
  }
  if (isAbortError(err)) {
    const timeout = (err as { name?: string }).name === 'TimeoutError';
    return new ProviderError({
      kind: ErrorKind.Transient,
      code: timeout ? ErrorCode.Timeout : ErrorCode.Aborted,
      message: timeout ? 'timed out' : 'aborted',
      provider,
      operation,
      cause: err,
    });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ProviderError({ kind: ErrorKind.Transient, message, provider, operation, cause: err });
}
