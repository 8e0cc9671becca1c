import { ErrorCode, ErrorKind, ProviderError, wrapError } from '@egress-proxies/contract';
import { ReferenceBackendError } from './backend-error.js';

/**
 * Backend error to contract error, by code (never by message text). NotFound is get's answer only:
 * a volume or domain that vanished mid-create (or mid-delete, mid-list) says nothing about whether
 * the instance exists, and NotFound would make the reconciler think it can start over.
 */
export function classifyBackendError(provider: string, operation: string, err: unknown): ProviderError {
  if (!ReferenceBackendError.isInstance(err)) return wrapError(provider, operation, err);
  const at = `${err.step} on ${err.host}: ${err.message}`;
  const make = (kind: ErrorKind, code: string) =>
    new ProviderError({
      kind,
      code,
      message: at,
      provider,
      operation,
      cause: err,
      // 2.5: a BACKEND_ERROR's details carry the backend's own code.
      details: { step: err.step, host: err.host, backendCode: err.code },
    });
  switch (err.code) {
    // NO_VOLUME answers only steps outside get, where the default (Transient) is the answer too.
    case 'NO_DOMAIN':
      // Only get answers "the instance does not exist"; anywhere else a vanished object is retried.
      return operation === 'get'
        ? make(ErrorKind.NotFound, ErrorCode.NotFound)
        : make(ErrorKind.Transient, ErrorCode.Transient);
    case 'NO_POOL':
      return make(ErrorKind.Permanent, 'POOL_NOT_FOUND');
    // INVALID answers only a stop of a stopped domain (tolerated) or a start of a running one (never asked).
    case 'NO_HOST':
      return make(ErrorKind.Permanent, ErrorCode.Permanent);
    case 'AUTH':
      return make(ErrorKind.Permanent, ErrorCode.AuthFailed);
    case 'NO_SPACE':
      return make(ErrorKind.QuotaExceeded, ErrorCode.QuotaExceeded);
    case 'UNREACHABLE':
      return make(ErrorKind.Transient, ErrorCode.Unreachable);
    case 'TIMEOUT':
      return make(ErrorKind.Transient, ErrorCode.Timeout);
    // BUSY too: 2.5 allows BACKEND_ERROR for a busy backend, and its details carry the backend's code.
    default:
      return make(ErrorKind.Transient, ErrorCode.BackendError);
  }
}
