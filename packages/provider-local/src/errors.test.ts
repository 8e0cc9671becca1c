import { ErrorCode, ErrorKind, ProviderError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { classify } from './errors.js';

const sys = (code: string) => Object.assign(new Error(`${code}: something`), { code });

describe('classify', () => {
  it.each([
    ['ENOSPC', ErrorKind.QuotaExceeded, ErrorCode.QuotaExceeded],
    ['EACCES', ErrorKind.Permanent, ErrorCode.Forbidden],
    ['EROFS', ErrorKind.Permanent, ErrorCode.Forbidden],
    ['EBUSY', ErrorKind.Transient, ErrorCode.Busy],
    ['ESTALE', ErrorKind.Transient, ErrorCode.Unreachable],
    ['ENOENT', ErrorKind.Transient, ErrorCode.BackendError],
    ['EIO', ErrorKind.Transient, ErrorCode.BackendError],
  ])('%s is %s %s, with the step and errno in details', (errno, kind, code) => {
    const e = classify('write-state', sys(errno)) as ProviderError;
    expect(ProviderError.isInstance(e)).toBe(true);
    expect(e.kind).toBe(kind);
    expect(e.code).toBe(code);
    expect(e.details).toEqual({ step: 'write-state', errno });
    expect(e.message).toContain('write-state');
  });

  it('passes aborts and classified errors through', () => {
    const abort = new DOMException('x', 'AbortError');
    expect(classify('spawn', abort)).toBe(abort);
    const pe = new ProviderError({ kind: ErrorKind.Permanent, message: 'm' });
    expect(classify('spawn', pe)).toBe(pe);
  });

  it('makes a non-system error Transient', () => {
    expect((classify('spawn', new Error('odd')) as ProviderError).kind).toBe(ErrorKind.Transient);
  });
});
