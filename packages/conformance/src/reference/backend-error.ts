const MARKER = Symbol.for('@egress-proxies/conformance.ReferenceBackendError');

/** The in-memory backend's native error codes, in the style of a hypervisor API. */
export type ReferenceBackendCode =
  | 'NO_HOST'
  | 'NO_DOMAIN'
  | 'NO_VOLUME'
  | 'NO_POOL'
  | 'DOMAIN_EXISTS'
  | 'VOLUME_EXISTS'
  | 'NO_SPACE'
  | 'UNREACHABLE'
  | 'BUSY'
  | 'AUTH'
  | 'TIMEOUT'
  | 'INVALID'
  | 'INTERNAL';

/** An error the in-memory backend answers with; the provider classifies it by `code`, never by text. */
export class ReferenceBackendError extends Error {
  readonly [MARKER] = true;
  readonly code: ReferenceBackendCode;
  readonly step: string;
  readonly host: string;

  constructor(code: ReferenceBackendCode, step: string, host: string, message: string) {
    super(message);
    this.name = 'ReferenceBackendError';
    this.code = code;
    this.step = step;
    this.host = host;
  }

  static isInstance(value: unknown): value is ReferenceBackendError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
