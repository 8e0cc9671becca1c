import { describe, expect, it } from 'vitest';
import { TestEnvError } from './errors.js';

describe('TestEnvError', () => {
  it('carries a code and is recognised by its marker, not by identity', () => {
    const e = new TestEnvError('LOCK_TIMEOUT', 'x');
    expect(e.code).toBe('LOCK_TIMEOUT');
    expect(e.name).toBe('TestEnvError');
    expect(TestEnvError.isInstance(e)).toBe(true);
    const lookalike = { [Symbol.for('@egress-proxies/testenv-libvirt/TestEnvError')]: true };
    expect(TestEnvError.isInstance(lookalike)).toBe(true);
    expect(TestEnvError.isInstance(new Error('x'))).toBe(false);
    expect(TestEnvError.isInstance(null)).toBe(false);
  });
});
