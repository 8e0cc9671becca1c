import { ErrorCode, ErrorKind, isAbortError, ProviderError } from '@egress-proxies/contract';
import { KubeApiError } from './api-error.js';

/** Codes this provider adds to the contract's (documented in the README). */
export const KubernetesErrorCode = {
  /** A Pod with the request's name is marked ours but is still being deleted. */
  PodTerminating: 'POD_TERMINATING',
  /** A ResourceQuota's status is not computed yet, so admission cannot decide. */
  QuotaUnknown: 'QUOTA_STATUS_UNKNOWN',
} as const;

const CERT_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

export interface ClassifyOptions {
  /**
   * What a 404 means here. Only a read of the Pod itself may say NotFound; inside create a
   * missing namespace (or anything else) must stay retryable, never "the instance is gone".
   */
  notFound: 'NotFound' | 'Transient';
}

/** A 403 from the ResourceQuota admission plugin: the only Forbidden that is about capacity. */
export function isQuotaExceeded(err: KubeApiError): boolean {
  return err.status === 403 && err.reason === 'Forbidden' && /\bexceeded quota\b/.test(err.statusMessage);
}

function quotaStatusUnknown(err: KubeApiError): boolean {
  return (
    err.status === 403 && err.reason === 'Forbidden' && /\bstatus unknown for quota\b/.test(err.statusMessage)
  );
}

function codeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  const cause = (err as { cause?: unknown }).cause;
  return cause !== err ? codeOf(cause) : undefined;
}

/**
 * Classifies a backend failure into the contract's four classes. The table:
 * - an abort or timeout: Transient `ABORTED` / `TIMEOUT`;
 * - 403 Forbidden whose message says `exceeded quota` (the ResourceQuota admission plugin):
 *   QuotaExceeded; `status unknown for quota` (the quota controller has not caught up): Transient;
 * - 401: Permanent `AUTH_FAILED`; any other 403: Permanent `FORBIDDEN`;
 * - any other 4xx (400 BadRequest, 422 Invalid, ...): Permanent `INVALID_REQUEST`;
 * - 404: NotFound, or Transient where `options.notFound` says so;
 * - 409 (Conflict, AlreadyExists reaching here), 410, 429, 5xx: Transient (`BACKEND_BUSY` for 429
 *   and 503, `TIMEOUT` for 504);
 * - a TLS verification failure: Permanent `CERTIFICATE_INVALID` (the config, not the network);
 * - any other transport failure: Transient `UNREACHABLE`.
 */
export function classify(err: unknown, options: ClassifyOptions = { notFound: 'NotFound' }): ProviderError {
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
  if (KubeApiError.isInstance(err)) return classifyApi(err, options);
  const code = codeOf(err);
  const message = err instanceof Error ? err.message : String(err);
  if (code && CERT_CODES.has(code)) {
    return new ProviderError({
      kind: ErrorKind.Permanent,
      code: ErrorCode.CertificateInvalid,
      message: `the API server's certificate was rejected (${code})`,
      cause: err,
    });
  }
  return new ProviderError({
    kind: ErrorKind.Transient,
    code: ErrorCode.Unreachable,
    message: `API server unreachable: ${message}`,
    cause: err,
    ...(code ? { details: { errno: code } } : {}),
  });
}

function classifyApi(err: KubeApiError, options: ClassifyOptions): ProviderError {
  const details: Record<string, string | number> = { status: err.status };
  if (err.reason) details.reason = err.reason;
  if (err.retryAfterSeconds !== undefined) details.retryAfterSeconds = err.retryAfterSeconds;
  const base = { message: err.message, cause: err, details };
  const s = err.status;
  if (isQuotaExceeded(err)) return new ProviderError({ ...base, kind: ErrorKind.QuotaExceeded });
  if (quotaStatusUnknown(err)) {
    return new ProviderError({ ...base, kind: ErrorKind.Transient, code: KubernetesErrorCode.QuotaUnknown });
  }
  if (s === 401) return new ProviderError({ ...base, kind: ErrorKind.Permanent, code: ErrorCode.AuthFailed });
  if (s === 403) return new ProviderError({ ...base, kind: ErrorKind.Permanent, code: ErrorCode.Forbidden });
  if (s === 404) {
    return options.notFound === 'NotFound'
      ? new ProviderError({ ...base, kind: ErrorKind.NotFound })
      : new ProviderError({ ...base, kind: ErrorKind.Transient });
  }
  if (s === 429 || s === 503)
    return new ProviderError({ ...base, kind: ErrorKind.Transient, code: ErrorCode.Busy });
  if (s === 504) return new ProviderError({ ...base, kind: ErrorKind.Transient, code: ErrorCode.Timeout });
  if (s >= 500 || s === 409 || s === 410 || s === 408) {
    return new ProviderError({ ...base, kind: ErrorKind.Transient, code: ErrorCode.BackendError });
  }
  if (s >= 400)
    return new ProviderError({ ...base, kind: ErrorKind.Permanent, code: ErrorCode.InvalidRequest });
  // A non-error status that still failed (a redirect the client did not follow): retry.
  return new ProviderError({ ...base, kind: ErrorKind.Transient, code: ErrorCode.BackendError });
}
