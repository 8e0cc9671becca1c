import {
  ErrorCode,
  isAbortError,
  notFoundError,
  ProviderError,
  permanentError,
  quotaExceededError,
  transientError,
} from '@egress-proxies/contract';
import {
  CallTimeoutError,
  ConnectionClosedError,
  ErrorNumber,
  LibvirtError,
  SshAuthenticationError,
  SshForwardingRefusedError,
  SshHostKeyMismatchError,
  SshSocketNotFoundError,
  SshUnavailableError,
  SshUnknownHostKeyError,
  TransportError,
  UnsupportedAuthError,
} from 'libvirt-rpc-ts/codes';

/** kvm-specific error codes (besides the contract's). */
export const KvmErrorCode = {
  PoolNotFound: 'POOL_NOT_FOUND',
  PoolNotActive: 'POOL_NOT_ACTIVE',
  ImageDownloadFailed: 'IMAGE_DOWNLOAD_FAILED',
  ImageChecksumMismatch: 'IMAGE_CHECKSUM_MISMATCH',
  NotRunning: 'DOMAIN_NOT_RUNNING',
} as const;

/** Where an error happened: outside get a backend "not found" is Transient, never NotFound. */
export type Phase = 'create' | 'get' | 'delete' | 'list' | 'check' | 'secondary';

/** The tail of a libvirt system error for ENOSPC (`...: No space left on device`). */
const NO_SPACE_RE = /: No space left on device$/;

const PERMANENT_CODES = new Set<number>([
  ErrorNumber.VIR_ERR_XML_ERROR,
  ErrorNumber.VIR_ERR_NO_SUPPORT,
  ErrorNumber.VIR_ERR_INVALID_ARG,
]);

/** A short, secret-free summary of a libvirt error for details and log fields. */
export function libvirtFields(err: unknown): Record<string, string | number> {
  if (!LibvirtError.isInstance(err)) return {};
  return { libvirtCode: err.code, libvirtCodeName: err.codeName };
}

/**
 * The classify table: backend error -> contract error. An error that already has a class keeps
 * it; an abort is returned unchanged so the boundary reports it as `ABORTED`/`TIMEOUT`.
 */
export function classify(phase: Phase, err: unknown): unknown {
  if (ProviderError.isInstance(err) || isAbortError(err)) return err;
  const cause = err;
  const msg = err instanceof Error ? err.message : String(err);
  if (LibvirtError.isInstance(err)) {
    const details = libvirtFields(err);
    const extra = { cause, details };
    // libvirt has no code for a full disk: a system error ends with strerror(ENOSPC), at any step.
    if (err.code === ErrorNumber.VIR_ERR_SYSTEM_ERROR && NO_SPACE_RE.test(msg))
      return quotaExceededError(msg, { ...extra, code: ErrorCode.QuotaExceeded });
    switch (err.code) {
      case ErrorNumber.VIR_ERR_NO_DOMAIN:
      case ErrorNumber.VIR_ERR_NO_STORAGE_VOL:
        // Only get answers "the instance does not exist"; anywhere else a vanished object is retried.
        if (phase === 'get') return notFoundError(msg, extra);
        return transientError(phase === 'create' ? `${msg} (vanished during create)` : msg, extra);
      case ErrorNumber.VIR_ERR_NO_STORAGE_POOL:
        // Inside create the pool is looked up on every call; a missing pool is fixed on the host,
        // not in the Proxy's spec, so create keeps retrying instead of latching the Proxy failed.
        return phase === 'create'
          ? transientError(msg, { ...extra, code: KvmErrorCode.PoolNotFound })
          : permanentError(msg, { ...extra, code: KvmErrorCode.PoolNotFound });
      case ErrorNumber.VIR_ERR_AUTH_FAILED:
        return permanentError(msg, { ...extra, code: ErrorCode.AuthFailed });
      case ErrorNumber.VIR_ERR_ACCESS_DENIED:
        return permanentError(msg, { ...extra, code: ErrorCode.Forbidden });
      case ErrorNumber.VIR_ERR_RESOURCE_BUSY:
        return transientError(msg, { ...extra, code: ErrorCode.Busy });
      default:
        if (PERMANENT_CODES.has(err.code))
          return permanentError(msg, { ...extra, code: ErrorCode.BackendError });
        return transientError(msg, { ...extra, code: ErrorCode.BackendError });
    }
  }
  if (SshAuthenticationError.isInstance(err) || UnsupportedAuthError.isInstance(err))
    return permanentError(msg, { cause, code: ErrorCode.AuthFailed });
  if (SshUnknownHostKeyError.isInstance(err) || SshHostKeyMismatchError.isInstance(err))
    return permanentError(msg, { cause, code: ErrorCode.HostKeyRejected });
  if (SshForwardingRefusedError.isInstance(err) || SshUnavailableError.isInstance(err))
    return permanentError(msg, { cause, code: ErrorCode.BackendError });
  // The socket vanishes for a moment while libvirtd restarts.
  if (SshSocketNotFoundError.isInstance(err) || TransportError.isInstance(err))
    return transientError(msg, { cause, code: ErrorCode.Unreachable });
  if (ConnectionClosedError.isInstance(err))
    return transientError(msg, { cause, code: ErrorCode.Unreachable });
  if (CallTimeoutError.isInstance(err)) return transientError(msg, { cause, code: ErrorCode.Timeout });
  return transientError(msg, { cause });
}

/** True for a libvirt error with one of `codes`. */
export function hasCode(err: unknown, ...codes: number[]): boolean {
  return LibvirtError.isInstance(err) && codes.includes(err.code);
}
