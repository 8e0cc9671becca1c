import { isPermanent, type ProviderError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { formatId, formatVolumeId, parseId, parseVolumeId } from './id.js';

describe('reference IDs', () => {
  it('round-trip', () => {
    expect(parseId(formatId('alpha', 'proxy-0123456789abcdef'))).toEqual({
      host: 'alpha',
      name: 'proxy-0123456789abcdef',
    });
    expect(parseVolumeId(formatVolumeId('beta', 'proxy-0123456789abcdef-seed.iso'))).toEqual({
      host: 'beta',
      volume: 'proxy-0123456789abcdef-seed.iso',
    });
  });

  it.each([
    '',
    'hosts/alpha/domains/',
    'hosts/Alpha/domains/proxy-0123456789abcdef',
    'hosts/alpha/domains/not-ours',
    'a/b/c/d',
  ])('rejects %j as Permanent INVALID_ID naming the value', (bad) => {
    const err = (() => {
      try {
        parseId(bad);
      } catch (e) {
        return e;
      }
    })();
    expect(isPermanent(err)).toBe(true);
    expect((err as ProviderError).code).toBe('INVALID_ID');
    expect((err as ProviderError).message).toContain(JSON.stringify(bad));
  });
});
