import { ErrorCode, ErrorKind } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { apiErrorFromBody, KubeApiError } from './api-error.js';
import { classify, KubernetesErrorCode } from './errors.js';

const status = (code: number, reason: string, message: string) =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message });

const QUOTA =
  'pods "proxy-1" is forbidden: exceeded quota: no-pods, requested: pods=1, used: pods=0, limited: pods=0';
const RBAC =
  'pods is forbidden: User "system:serviceaccount:team-a:limited" cannot create resource "pods" in API group "" in the namespace "team-a"';

describe('apiErrorFromBody', () => {
  it('reads reason and message from a Status document', () => {
    const e = apiErrorFromBody(404, status(404, 'NotFound', 'pods "x" not found'));
    expect(KubeApiError.isInstance(e)).toBe(true);
    expect(e.status).toBe(404);
    expect(e.reason).toBe('NotFound');
    expect(e.statusMessage).toBe('pods "x" not found');
  });

  it('falls back to the status code when there is no body (a 401) or a non-JSON one', () => {
    expect(apiErrorFromBody(401, undefined).reason).toBe('Unauthorized');
    const html = apiErrorFromBody(502, '<html>\n<body>Bad gateway</body>\n</html>');
    expect(html.reason).toBe('');
    expect(html.statusMessage).toBe('<html> <body>Bad gateway</body> </html>');
  });

  it('keeps a numeric Retry-After', () => {
    expect(
      apiErrorFromBody(429, status(429, 'TooManyRequests', 'slow down'), { 'retry-after': '3' })
        .retryAfterSeconds,
    ).toBe(3);
  });
});

describe('classify', () => {
  const api = (code: number, reason: string, message = 'm') =>
    apiErrorFromBody(code, status(code, reason, message));

  it.each([
    [api(403, 'Forbidden', QUOTA), ErrorKind.QuotaExceeded, ErrorCode.QuotaExceeded],
    [
      api(403, 'Forbidden', 'status unknown for quota: q, resources: pods'),
      ErrorKind.Transient,
      KubernetesErrorCode.QuotaUnknown,
    ],
    [api(403, 'Forbidden', RBAC), ErrorKind.Permanent, ErrorCode.Forbidden],
    [
      api(403, 'Forbidden', 'pods "p" is forbidden: maximum cpu usage per Pod is 1'),
      ErrorKind.Permanent,
      ErrorCode.Forbidden,
    ],
    [apiErrorFromBody(401, undefined), ErrorKind.Permanent, ErrorCode.AuthFailed],
    [api(400, 'BadRequest'), ErrorKind.Permanent, ErrorCode.InvalidRequest],
    [api(422, 'Invalid'), ErrorKind.Permanent, ErrorCode.InvalidRequest],
    [api(404, 'NotFound'), ErrorKind.NotFound, ErrorCode.NotFound],
    [api(409, 'Conflict'), ErrorKind.Transient, ErrorCode.BackendError],
    [api(410, 'Expired'), ErrorKind.Transient, ErrorCode.BackendError],
    [api(429, 'TooManyRequests'), ErrorKind.Transient, ErrorCode.Busy],
    [api(500, 'InternalError'), ErrorKind.Transient, ErrorCode.BackendError],
    [api(503, 'ServiceUnavailable'), ErrorKind.Transient, ErrorCode.Busy],
    [api(504, 'Timeout'), ErrorKind.Transient, ErrorCode.Timeout],
  ])('%s is %s %s', (err, kind, code) => {
    const e = classify(err);
    expect(e.kind).toBe(kind);
    expect(e.code).toBe(code);
    expect(e.details.status).toBe(err.status);
    expect(e.cause).toBe(err);
  });

  it('matches quota only on a 403 Forbidden: the same words in another status are not quota', () => {
    expect(classify(api(500, 'InternalError', QUOTA)).kind).toBe(ErrorKind.Transient);
    expect(classify(api(403, 'SomethingElse', QUOTA)).kind).toBe(ErrorKind.Permanent);
  });

  it('makes a 404 Transient where the caller says so (inside create)', () => {
    expect(classify(api(404, 'NotFound'), { notFound: 'Transient' }).kind).toBe(ErrorKind.Transient);
  });

  it('classifies aborts and timeouts as Transient ABORTED / TIMEOUT', () => {
    expect(classify(new DOMException('x', 'AbortError')).code).toBe(ErrorCode.Aborted);
    expect(classify(new DOMException('x', 'TimeoutError')).code).toBe(ErrorCode.Timeout);
  });

  it('classifies transport failures as Transient UNREACHABLE and TLS rejections as Permanent', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const e = classify(refused);
    expect(e.kind).toBe(ErrorKind.Transient);
    expect(e.code).toBe(ErrorCode.Unreachable);
    expect(e.details.errno).toBe('ECONNREFUSED');
    const cert = Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(classify(cert).kind).toBe(ErrorKind.Permanent);
    expect(classify(cert).code).toBe(ErrorCode.CertificateInvalid);
    const nested = new Error('request failed', { cause: { code: 'ECONNRESET' } });
    expect(classify(nested).details.errno).toBe('ECONNRESET');
  });
});
