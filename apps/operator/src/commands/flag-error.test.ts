import { describe, expect, it } from 'vitest';
import { FlagError } from './flag-error.js';

describe('FlagError', () => {
  it('is recognised by its marker, also from another copy of this package', () => {
    const e = new FlagError('--x: bad');
    expect(FlagError.isInstance(e)).toBe(true);
    expect(e.code).toBe('INVALID_FLAG');
    const fromOtherCopy = { [Symbol.for('@egress-proxies/operator.FlagError')]: true, message: 'm' };
    expect(FlagError.isInstance(fromOtherCopy)).toBe(true);
    const lookalike = Object.assign(new Error('--x: bad'), { name: 'FlagError', code: 'INVALID_FLAG' });
    expect(FlagError.isInstance(lookalike)).toBe(false);
    expect(FlagError.isInstance(undefined)).toBe(false);
  });
});
