// Symbol.for so two installed copies of this package recognise each other's errors.
const MARKER = Symbol.for('@egress-proxies/provider-kubernetes.KubeApiError');

export interface KubeStatusFields {
  /** The HTTP status code. */
  status: number;
  /** `Status.reason`: `Forbidden`, `NotFound`, `AlreadyExists`, `Conflict`, `Invalid`, ... */
  reason: string;
  /** `Status.message`, as the API server wrote it. */
  message: string;
  /** `Retry-After` in seconds, when the server sent one. */
  retryAfterSeconds?: number;
}

/**
 * An answer from the API server that was not a success: the HTTP status plus the fields of its
 * `Status` document. The message is the server's own text; it never contains our credentials.
 */
export class KubeApiError extends Error {
  readonly [MARKER] = true;
  readonly code = 'KUBE_API_ERROR';
  readonly status: number;
  readonly reason: string;
  readonly retryAfterSeconds: number | undefined;

  constructor(fields: KubeStatusFields) {
    super(`HTTP ${fields.status} ${fields.reason || 'Unknown'}: ${fields.message || '(no message)'}`);
    this.name = 'KubeApiError';
    this.status = fields.status;
    this.reason = fields.reason;
    this.retryAfterSeconds = fields.retryAfterSeconds;
  }

  /** The server's message without the status prefix. */
  get statusMessage(): string {
    const i = this.message.indexOf(': ');
    return i >= 0 ? this.message.slice(i + 2) : this.message;
  }

  static isInstance(value: unknown): value is KubeApiError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}

const REASON_BY_STATUS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Gone',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/**
 * Builds a KubeApiError from a status and a raw body. A body that is not a `Status` document
 * (a proxy's HTML page, an empty 401) still gives a usable error: the reason then comes from the
 * status code, and the message is a short, single-line excerpt.
 */
export function apiErrorFromBody(
  status: number,
  body: unknown,
  headers?: Record<string, string>,
): KubeApiError {
  let reason = '';
  let message = '';
  if (typeof body === 'string' && body.trim() !== '') {
    try {
      const doc = JSON.parse(body) as { kind?: unknown; reason?: unknown; message?: unknown };
      if (typeof doc.reason === 'string') reason = doc.reason;
      if (typeof doc.message === 'string') message = doc.message;
    } catch {
      message = body.replace(/\s+/g, ' ').trim().slice(0, 200);
    }
  }
  const retry = headers?.['retry-after'];
  const retryAfterSeconds = retry !== undefined && /^\d+$/.test(retry) ? Number(retry) : undefined;
  return new KubeApiError({
    status,
    reason: reason || REASON_BY_STATUS[status] || '',
    message,
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
  });
}
