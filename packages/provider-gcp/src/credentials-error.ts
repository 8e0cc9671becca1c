const MARKER = Symbol.for('@egress-proxies/provider-gcp.CredentialsError');

/**
 * Credentials could not be loaded or exchanged for a token. The message is the library's
 * first line only, so a key or token echoed in a long error never reaches a log.
 */
export class CredentialsError extends Error {
  readonly [MARKER] = true;
  readonly code = 'CREDENTIALS_UNAVAILABLE';

  constructor(cause: unknown) {
    const text = cause instanceof Error ? cause.message : String(cause);
    super(`credentials unavailable: ${redact(text.split('\n')[0] ?? '')}`);
    this.name = 'CredentialsError';
  }

  static isInstance(value: unknown): value is CredentialsError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** Drops anything that looks like a bearer token, a JWT or a PEM block. */
export function redact(text: string): string {
  return text
    .replace(/-----BEGIN [^-]+-----[\s\S]*?(-----END [^-]+-----|$)/g, '[redacted key]')
    .replace(/\b[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b/g, '[redacted jwt]')
    .replace(/\bya29\.[A-Za-z0-9._-]+/g, '[redacted token]')
    .replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, '$1[redacted]')
    .slice(0, 300);
}
