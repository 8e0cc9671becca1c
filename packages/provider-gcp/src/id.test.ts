import { ErrorCode, isPermanent, type ProviderError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { formatId, lastSegment, parseId, regionOf } from './id.js';

describe('provider IDs', () => {
  it('round-trips', () => {
    const id = formatId('europe-west1-b', 'proxy-0123456789abcdef');
    expect(id).toBe('zones/europe-west1-b/instances/proxy-0123456789abcdef');
    expect(parseId(id)).toEqual({ zone: 'europe-west1-b', name: 'proxy-0123456789abcdef' });
  });

  it.each([
    '',
    'not-an-id',
    'a/b/c/d/e/f',
    'zones/europe-west1-b/instances/',
    'zones//instances/proxy-1',
    'zone/europe-west1-b/instances/proxy-1',
    'zones/europe-west1-b/disks/proxy-1',
    'zones/Europe-west1-b/instances/proxy-1',
    'zones/europe-west1/instances/proxy-1',
    'zones/europe-west1-b/instances/Proxy-1',
    'zones/europe-west1-b/instances/proxy-1/extra',
    'projects/p/zones/europe-west1-b/instances/proxy-1',
  ])('rejects %j as Permanent INVALID_ID naming it', (id) => {
    try {
      parseId(id);
      throw new Error('accepted');
    } catch (err) {
      expect(isPermanent(err)).toBe(true);
      expect((err as ProviderError).code).toBe(ErrorCode.InvalidId);
      expect((err as Error).message).toContain(JSON.stringify(id));
    }
  });

  it('rejects a non-string', () => {
    expect(() => parseId(42)).toThrow(/not a string/);
  });

  it('derives the region and the last path segment', () => {
    expect(regionOf('us-central1-a')).toBe('us-central1');
    expect(lastSegment('https://x/compute/v1/projects/p/zones/us-east1-b')).toBe('us-east1-b');
    expect(lastSegment('zones/us-east1-b')).toBe('us-east1-b');
  });
});
