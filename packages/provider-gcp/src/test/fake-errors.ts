/** Compute's JSON error bodies, shaped like the real API's (legacy `errors[]` plus `status`). */
export interface FakeError {
  status: number;
  body: unknown;
}

function body(code: number, message: string, reason: string, domain: string, status?: string): FakeError {
  return {
    status: code,
    body: {
      error: {
        code,
        message,
        errors: [{ message, domain, reason }],
        ...(status ? { status } : {}),
      },
    },
  };
}

export const computeErrors = {
  notFound: (resource: string) =>
    body(404, `The resource '${resource}' was not found`, 'notFound', 'global', 'NOT_FOUND'),
  alreadyExists: (resource: string) =>
    body(409, `The resource '${resource}' already exists`, 'alreadyExists', 'global', 'ALREADY_EXISTS'),
  rateLimited: () =>
    body(
      429,
      "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute' of service 'compute.googleapis.com'.",
      'rateLimitExceeded',
      'usageLimits',
      'RESOURCE_EXHAUSTED',
    ),
  quotaExceeded: (metric: string, region: string, limit: number) =>
    body(
      403,
      `Quota '${metric}' exceeded.  Limit: ${limit}.0 in region ${region}.`,
      'quotaExceeded',
      'usageLimits',
      'PERMISSION_DENIED',
    ),
  forbidden: (permission: string, resource: string) =>
    body(
      403,
      `Required '${permission}' permission for '${resource}'`,
      'forbidden',
      'global',
      'PERMISSION_DENIED',
    ),
  apiDisabled: (project: string) =>
    body(
      403,
      `Compute Engine API has not been used in project ${project} before or it is disabled.`,
      'accessNotConfigured',
      'usageLimits',
      'PERMISSION_DENIED',
    ),
  unauthenticated: () =>
    body(
      401,
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      'authError',
      'global',
      'UNAUTHENTICATED',
    ),
  badRequest: (message: string) => body(400, message, 'invalid', 'global', 'INVALID_ARGUMENT'),
  backendError: () =>
    body(
      503,
      'Internal error. Please try again or contact Google Support.',
      'backendError',
      'global',
      'UNAVAILABLE',
    ),
  internal: () =>
    body(
      500,
      'Internal error. Please try again or contact Google Support.',
      'backendError',
      'global',
      'INTERNAL',
    ),
};
