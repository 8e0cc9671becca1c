import { isPermanent, Secret } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { resolveReferenceConfig } from './config.js';
import { referenceConfig } from './harness.js';

describe('resolveReferenceConfig', () => {
  it('fills defaults and wraps the token', () => {
    const { pollIntervalMs: _p, startTimeoutMs: _s, ...bare } = referenceConfig('zz-secret-9');
    const r = resolveReferenceConfig('ref', bare);
    expect(r.token).toBeInstanceOf(Secret);
    expect(r.token.reveal()).toBe('zz-secret-9');
    expect(r.listPartial).toBe('fail-whole');
    expect(r.pollIntervalMs).toBe(500);
    expect(r.hosts[0]).toEqual({ name: 'alpha', address: 'alpha.lab.internal:16509', pool: 'default' });
  });

  it.each([
    [{ hosts: [] }, /hosts must list at least one host/],
    [{ hosts: [{ name: 'Bad_Host' }] }, /hosts\[0\]\.name "Bad_Host"/],
    [{ hosts: [{ name: 'a' }, { name: 'a' }] }, /"a" is listed twice/],
    [
      { machineTypes: { small: { vcpus: 0, memoryMiB: 1, diskGiB: 1 } } },
      /machineTypes\.small\.vcpus must be a positive number, got 0/,
    ],
    [
      { images: { deb: { url: 'ftp://x', sizeGiB: 1 } } },
      /images\.deb\.url must be an http\(s\) URL, got "ftp:\/\/x"/,
    ],
    [{ token: '' }, /token must be a non-empty string/],
    [{ listPartial: 'sometimes' }, /listPartial must be .* got "sometimes"/],
  ])('rejects %j naming the bad value', (override, message) => {
    const config = { ...referenceConfig('zz-secret-9'), ...override } as Parameters<
      typeof resolveReferenceConfig
    >[1];
    const err = (() => {
      try {
        resolveReferenceConfig('ref', config);
      } catch (e) {
        return e;
      }
    })();
    expect(isPermanent(err)).toBe(true);
    expect(String((err as Error).message)).toMatch(message);
    expect(String((err as Error).message)).not.toContain('zz-secret-9');
  });
});
