import { ErrorCode, isPermanent, ProviderError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { formatId, parseId } from './id.js';

describe('provider IDs', () => {
  it('round-trips namespace/name', () => {
    expect(formatId({ namespace: 'team-a', name: 'proxy-0123456789abcdef' })).toBe(
      'team-a/proxy-0123456789abcdef',
    );
    expect(parseId('team-a/proxy-0123456789abcdef')).toEqual({
      namespace: 'team-a',
      name: 'proxy-0123456789abcdef',
    });
    expect(parseId('ns/a.b-c')).toEqual({ namespace: 'ns', name: 'a.b-c' });
  });

  it.each([
    ['', 'not "namespace/name"'],
    ['no-slash', 'not "namespace/name"'],
    ['team-a/', 'the Pod name is empty'],
    ['/proxy-1', 'is not a valid namespace name'],
    ['a/b/c', 'not "namespace/name"'],
    ['../../etc/passwd', 'not "namespace/name"'],
    ['Team/x', 'is not a valid namespace name'],
    ['ns/Upper', 'is not a valid Pod name'],
    ['ns/..', 'is not a valid Pod name'],
    ['ns/a%2Fb', 'is not a valid Pod name'],
    [`${'n'.repeat(64)}/x`, 'is not a valid namespace name'],
  ])('rejects %j as Permanent INVALID_ID', (id, why) => {
    let caught: unknown;
    try {
      parseId(id);
    } catch (err) {
      caught = err;
    }
    expect(isPermanent(caught)).toBe(true);
    expect((caught as ProviderError).code).toBe(ErrorCode.InvalidId);
    expect((caught as ProviderError).message).toContain(why);
    expect((caught as ProviderError).message).toContain(JSON.stringify(id));
  });

  it('rejects a non-string', () => {
    expect(() => parseId(42 as unknown as string)).toThrow(ProviderError);
  });
});
