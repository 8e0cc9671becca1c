import { describe, expect, it } from 'vitest';
import {
  ErrorCode,
  ErrorKind,
  isAbortError,
  isNotFound,
  isPermanent,
  isQuotaExceeded,
  isTransient,
  notFoundError,
  ProviderError,
  permanentError,
  quotaExceededError,
  transientError,
  wrapError,
} from './errors.js';

describe('ProviderError', () => {
  it('carries provider, operation, kind, code, retryable and cause', () => {
    const cause = new Error('pool full');
    const e = quotaExceededError('pool default has 1 GiB, needs 11 GiB', {
      provider: 'kvm2-home',
      operation: 'create',
      cause,
      details: { pool: 'default' },
    });
    expect(e).toBeInstanceOf(Error);
    expect(e.message).toBe('kvm2-home create: pool default has 1 GiB, needs 11 GiB');
    expect(e.reason).toBe('pool default has 1 GiB, needs 11 GiB');
    expect(e.kind).toBe(ErrorKind.QuotaExceeded);
    expect(e.code).toBe(ErrorCode.QuotaExceeded);
    expect(e.retryable).toBe(true);
    expect(e.cause).toBe(cause);
    expect(e.details).toEqual({ pool: 'default' });
    expect(Object.isFrozen(e.details)).toBe(true);
  });

  it('is retryable only for Transient and QuotaExceeded', () => {
    expect(transientError('x').retryable).toBe(true);
    expect(quotaExceededError('x').retryable).toBe(true);
    expect(notFoundError('x').retryable).toBe(false);
    expect(permanentError('x').retryable).toBe(false);
  });

  it('keeps a specific code over the kind default', () => {
    expect(permanentError('bad zone', { code: ErrorCode.InvalidPlacement }).code).toBe('INVALID_PLACEMENT');
    expect(permanentError('bad zone').code).toBe('PERMANENT');
  });

  it('the is* helpers match only their kind and reject non-errors', () => {
    const all = [notFoundError('a'), permanentError('b'), transientError('c'), quotaExceededError('d')];
    expect(all.map(isNotFound)).toEqual([true, false, false, false]);
    expect(all.map(isPermanent)).toEqual([false, true, false, false]);
    expect(all.map(isTransient)).toEqual([false, false, true, false]);
    expect(all.map(isQuotaExceeded)).toEqual([false, false, false, true]);
    for (const v of [new Error('x'), 'NotFound', null, undefined, { kind: 'NotFound' }]) {
      expect(isNotFound(v)).toBe(false);
      expect(ProviderError.isInstance(v)).toBe(false);
    }
  });
});

describe('wrapError', () => {
  it('keeps the class and code of a classified error and sets the configured name', () => {
    const inner = permanentError('zone "nas9" is not a configured host', {
      code: ErrorCode.InvalidPlacement,
    });
    const e = wrapError('kvm2-home', 'create', inner);
    expect(e.kind).toBe(ErrorKind.Permanent);
    expect(e.code).toBe('INVALID_PLACEMENT');
    expect(e.provider).toBe('kvm2-home');
    expect(e.operation).toBe('create');
    expect(e.message).toBe('kvm2-home create: zone "nas9" is not a configured host');
    expect(e.cause).toBe(inner);
  });

  it('replaces a wrong provider name but keeps the class', () => {
    const inner = notFoundError('no domain', { provider: 'kubernetes', operation: 'get' });
    const e = wrapError('k8s-prod', 'get', inner);
    expect(e.provider).toBe('k8s-prod');
    expect(isNotFound(e)).toBe(true);
    expect(e.message).toBe('k8s-prod get: no domain');
  });

  it('returns an already wrapped error unchanged', () => {
    const once = wrapError('p', 'delete', transientError('busy'));
    expect(wrapError('p', 'delete', once)).toBe(once);
  });

  it('turns an abort into Transient ABORTED', () => {
    const ac = new AbortController();
    ac.abort();
    const e = wrapError('p', 'get', ac.signal.reason);
    expect(isAbortError(ac.signal.reason)).toBe(true);
    expect(e.kind).toBe(ErrorKind.Transient);
    expect(e.code).toBe(ErrorCode.Aborted);
    expect(e.cause).toBe(ac.signal.reason);
  });

  it('turns an AbortSignal.timeout into Transient TIMEOUT', async () => {
    const signal = AbortSignal.timeout(1);
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    const e = wrapError('p', 'listByTag', signal.reason);
    expect(e.kind).toBe(ErrorKind.Transient);
    expect(e.code).toBe(ErrorCode.Timeout);
  });

  it('makes an unknown error Transient, keeping its message and cause', () => {
    const cause = new TypeError('socket hang up');
    const e = wrapError('pve', 'create', cause);
    expect(e.kind).toBe(ErrorKind.Transient);
    expect(e.code).toBe(ErrorCode.Transient);
    expect(e.message).toBe('pve create: socket hang up');
    expect(e.cause).toBe(cause);
    const s = wrapError('pve', 'create', 'plain string');
    expect(s.kind).toBe(ErrorKind.Transient);
    expect(s.reason).toBe('plain string');
  });
});
