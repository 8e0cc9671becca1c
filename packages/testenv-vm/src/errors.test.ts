import { describe, expect, it } from 'vitest';
import { TestEnvVmError } from './errors.js';

describe('TestEnvVmError', () => {
  it('carries a stable code and is recognised across copies by its symbol marker', () => {
    const e = new TestEnvVmError('AGENT_TIMEOUT', 'no answer');
    expect(e.code).toBe('AGENT_TIMEOUT');
    expect(e.name).toBe('TestEnvVmError');
    expect(TestEnvVmError.isInstance(e)).toBe(true);
    const foreign = Object.assign(new Error('x'), {
      [Symbol.for('@egress-proxies/testenv-vm/TestEnvVmError')]: true,
    });
    expect(TestEnvVmError.isInstance(foreign)).toBe(true);
    expect(TestEnvVmError.isInstance(new Error('x'))).toBe(false);
    expect(TestEnvVmError.isInstance(null)).toBe(false);
  });
});
