const API_MARKER = Symbol.for('@egress-proxies/provider-proxmox.ApiError');
const TASK_MARKER = Symbol.for('@egress-proxies/provider-proxmox.TaskError');

/**
 * A non-2xx answer from the API. `message` is the body's `message` (PVE >= 8.3, reference §0) or,
 * before that, the reason phrase, which is only the first line of the error text.
 */
export class ApiError extends Error {
  readonly [API_MARKER] = true;
  readonly code = 'PVE_API_ERROR';
  readonly status: number;
  readonly statusText: string;
  readonly text: string;
  readonly errors: Readonly<Record<string, string>>;
  readonly method: string;
  readonly path: string;

  constructor(o: {
    status: number;
    statusText: string;
    text: string;
    errors?: Record<string, string>;
    method: string;
    path: string;
  }) {
    const params =
      o.errors && Object.keys(o.errors).length
        ? ` (${Object.entries(o.errors)
            .map(([k, v]) => `${k}: ${v.trim()}`)
            .join('; ')})`
        : '';
    super(`${o.method} ${o.path}: ${o.status} ${o.text.trim() || o.statusText}${params}`);
    this.name = 'ApiError';
    this.status = o.status;
    this.statusText = o.statusText;
    this.text = o.text;
    this.errors = Object.freeze({ ...(o.errors ?? {}) });
    this.method = o.method;
    this.path = o.path;
  }

  static isInstance(v: unknown): v is ApiError {
    return typeof v === 'object' && v !== null && (v as Record<symbol, unknown>)[API_MARKER] === true;
  }
}

/** A task that ended with an exitstatus other than `OK` / `WARNINGS: n` (reference §9). */
export class TaskError extends Error {
  readonly [TASK_MARKER] = true;
  readonly code = 'PVE_TASK_FAILED';
  readonly upid: string;
  readonly exitstatus: string;

  constructor(upid: string, exitstatus: string) {
    super(`task ${taskType(upid)} failed: ${exitstatus}`);
    this.name = 'TaskError';
    this.upid = upid;
    this.exitstatus = exitstatus;
  }

  static isInstance(v: unknown): v is TaskError {
    return typeof v === 'object' && v !== null && (v as Record<symbol, unknown>)[TASK_MARKER] === true;
  }
}

/** The type field of a UPID (`UPID:node:pid:pstart:starttime:type:id:user:`), reference §9. */
export function taskType(upid: string): string {
  return upid.split(':')[5] ?? 'unknown';
}

export function upidNode(upid: string): string | undefined {
  return /^UPID:([a-zA-Z0-9-]+):/.exec(upid)?.[1];
}

/**
 * The ApiError for a non-2xx answer. PVE >= 8.3 puts the whole text in the body's `message`;
 * before, only the reason phrase (its first line) carries it; 401 and 595/596 bodies are empty.
 */
export function apiErrorFrom(
  status: number,
  statusText: string,
  body: string,
  method: string,
  path: string,
): ApiError {
  let message = '';
  let errors: Record<string, string> | undefined;
  try {
    const parsed = body ? (JSON.parse(body) as { message?: unknown; errors?: unknown }) : {};
    if (typeof parsed.message === 'string') message = parsed.message;
    if (parsed.errors && typeof parsed.errors === 'object') errors = parsed.errors as Record<string, string>;
  } catch {
    // Not JSON: the reason phrase is all there is.
  }
  return new ApiError({ status, statusText, text: message || statusText, errors, method, path });
}
