import { ErrorCode, instanceName, isPermanent, type ProviderError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { formatId, parseId } from './id.js';

describe('provider IDs', () => {
  it('round-trips every name instanceName produces', () => {
    const name = instanceName('default', 'my-proxy');
    expect(formatId(name)).toBe(`local/${name}`);
    expect(parseId(formatId(name))).toBe(name);
  });

  it.each([
    '',
    'not-an-id',
    'local/',
    'local/../../etc/passwd',
    'local/a/b',
    'local/UPPER',
    'a/b/c/d/e/f/g',
    'local/-x',
    42,
  ])('rejects %j as Permanent INVALID_ID naming the value', (bad) => {
    let err: unknown;
    try {
      parseId(bad);
    } catch (e) {
      err = e;
    }
    expect(isPermanent(err)).toBe(true);
    expect((err as ProviderError).code).toBe(ErrorCode.InvalidId);
    expect((err as ProviderError).message).toContain(JSON.stringify(bad));
  });
});
