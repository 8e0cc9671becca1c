import { readFileSync } from 'node:fs';
import { ErrorCode, type ProviderError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import type { ComputeOperation } from './backend.js';
import { CredentialsError } from './credentials-error.js';
import { ComputeApiError, classify, classifyOperation, parseErrorBody } from './errors.js';

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');

function apiError(status: number, file: string) {
  return new ComputeApiError({ status, method: 'GET', path: '/x', ...parseErrorBody(fixture(file)) });
}

describe('classify (real Compute error bodies)', () => {
  it.each([
    [404, '404-not-found.json', 'NotFound', ErrorCode.NotFound],
    [403, '403-quota-exceeded.json', 'QuotaExceeded', ErrorCode.QuotaExceeded],
    [403, '403-rate-limit-exceeded.json', 'QuotaExceeded', ErrorCode.QuotaExceeded],
    [429, '429-rate-limit.json', 'QuotaExceeded', ErrorCode.QuotaExceeded],
    [403, '403-forbidden.json', 'Permanent', ErrorCode.Forbidden],
    [403, '403-access-not-configured.json', 'Permanent', ErrorCode.Forbidden],
    [401, '401-unauthenticated.json', 'Permanent', ErrorCode.AuthFailed],
    [400, '400-invalid-field.json', 'Permanent', ErrorCode.InvalidRequest],
    [409, '409-already-exists.json', 'Transient', ErrorCode.BackendError],
    [503, '503-backend-error.json', 'Transient', ErrorCode.BackendError],
    [500, '500-internal.json', 'Transient', ErrorCode.BackendError],
  ])('HTTP %i %s -> %s', (status, file, kind, code) => {
    const e = classify(apiError(status, file));
    expect(e.kind).toBe(kind);
    expect(e.code).toBe(code);
    expect(e.details.httpStatus).toBe(status);
  });

  it('reads reasons before the status: the same 403 status is quota or permission by reason', () => {
    expect(classify(apiError(403, '403-quota-exceeded.json')).kind).toBe('QuotaExceeded');
    expect(classify(apiError(403, '403-forbidden.json')).kind).toBe('Permanent');
  });

  it('treats a 429 without any body as QuotaExceeded', () => {
    const e = new ComputeApiError({ status: 429, method: 'GET', path: '/x', ...parseErrorBody('') });
    expect(classify(e).kind).toBe('QuotaExceeded');
  });

  it('keeps reasons, rpc status and ErrorInfo reason from the body', () => {
    const parsed = parseErrorBody(fixture('429-rate-limit.json'));
    expect(parsed.reasons).toEqual(['rateLimitExceeded']);
    expect(parsed.rpcStatus).toBe('RESOURCE_EXHAUSTED');
    expect(parsed.errorInfoReason).toBe('RATE_LIMIT_EXCEEDED');
  });

  it('survives bodies that are not Compute JSON', () => {
    expect(parseErrorBody('<html>bad gateway</html>')).toEqual({
      message: '<html>bad gateway</html>',
      reasons: [],
    });
    expect(parseErrorBody('{"error":"invalid_grant"}').message).toBe('invalid_grant');
    expect(parseErrorBody('{"error":{"errors":[{"reason":7}]}}').reasons).toEqual([]);
  });

  it('makes network failures Transient UNREACHABLE and aborts Transient ABORTED/TIMEOUT', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(classify(refused)).toMatchObject({ kind: 'Transient', code: ErrorCode.Unreachable });
    expect(classify(new DOMException('aborted', 'AbortError'))).toMatchObject({
      kind: 'Transient',
      code: 'ABORTED',
    });
    expect(classify(new DOMException('timed out', 'TimeoutError'))).toMatchObject({
      kind: 'Transient',
      code: 'TIMEOUT',
    });
  });

  it('makes unavailable credentials Transient CREDENTIALS_UNAVAILABLE without echoing secrets', () => {
    const e = classify(
      new CredentialsError(new Error('invalid_grant: Bearer ya29.secret-token-value and more')),
    );
    expect(e.kind).toBe('Transient');
    expect(e.code).toBe(ErrorCode.CredentialsUnavailable);
    expect(e.message).not.toContain('ya29.secret-token-value');
  });
});

describe('classifyOperation', () => {
  const op = (file: string) => JSON.parse(fixture(file)) as ComputeOperation;

  it.each([
    ['operation-quota-failed.json', 'QuotaExceeded', "Quota 'IN_USE_ADDRESSES' exceeded"],
    ['operation-resource-pool-exhausted.json', 'QuotaExceeded', 'does not have enough resources'],
    ['operation-image-not-found.json', 'Permanent', 'ubuntu-9999-lts'],
  ])('%s -> %s carrying the operation message', (file, kind, text) => {
    const e = classifyOperation(op(file)) as ProviderError;
    expect(e.kind).toBe(kind);
    expect(e.message).toContain(text);
    expect(e.details.operation).toBe(op(file).name);
  });

  it('returns nothing for a successful or unfinished operation', () => {
    expect(classifyOperation(op('operation-done.json'))).toBeUndefined();
    expect(classifyOperation({ ...op('operation-quota-failed.json'), status: 'RUNNING' })).toBeUndefined();
  });
});
