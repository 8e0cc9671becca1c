import { afterEach, describe, expect, it } from 'vitest';
import { computeErrors } from '../src/test/fake-errors.js';
import { type Setup, setup } from './helpers.js';

let s: Setup;
afterEach(async () => {
  await s?.close();
});

describe('checker', () => {
  it('makes one aggregated-list call with maxResults=1 and reports quota headroom', async () => {
    s = await setup({ zones: ['us-central1-a', 'us-central1-b'] });
    s.fake.setQuotaLimit('us-central1', 'CPUS', 16);
    const [r] = await s.provider.check();
    expect(r).toMatchObject({ target: s.fake.project, ready: true, reason: 'Ready' });
    expect(r!.address).toBe(new URL(s.fake.url).host);
    expect(r!.details).toMatchObject({
      regions: 'us-central1',
      'quota.us-central1.CPUS.limit': '16',
      'quota.us-central1.CPUS.usage': '0',
      'quota.us-central1.CPUS.headroom': '16',
      'quota.us-central1.INSTANCES.headroom': '24',
      'quota.us-central1.IN_USE_ADDRESSES.headroom': '8',
    });
    const lists = s.fake.calls.filter((c) => c.step === 'instances.aggregatedList');
    expect(lists).toHaveLength(1);
    expect(s.fake.calls.filter((c) => c.step === 'regions.get')).toHaveLength(1);
    expect(lists[0]!.query.maxResults).toBe('1');
  });

  it('is not ready with QuotaExceeded when a needed quota has no headroom', async () => {
    s = await setup({ zones: ['us-central1-a', 'us-central1-b'] });
    s.fake.setQuotaLimit('us-central1', 'IN_USE_ADDRESSES', 0);
    const [r] = await s.provider.check();
    expect(r).toMatchObject({ ready: false, reason: 'QuotaExceeded' });
    expect(r!.message).toContain('IN_USE_ADDRESSES');
  });

  it('reads the quota of every region of the configured zones, and none without zones', async () => {
    s = await setup({ zones: ['us-central1-a', 'europe-west1-b'] });
    const [r] = await s.provider.check();
    expect(r!.details.regions).toBe('us-central1,europe-west1');
    expect(r!.details['quota.europe-west1.INSTANCES.limit']).toBe('24');
    await s.close();
    s = await setup();
    const [r2] = await s.provider.check();
    expect(r2).toMatchObject({ ready: true });
    expect(Object.keys(r2!.details).some((k) => k.startsWith('quota.'))).toBe(false);
    expect(s.fake.calls.some((c) => c.step === 'regions.get')).toBe(false);
  });

  it('internal mode does not need in-use addresses', async () => {
    s = await setup({ zones: ['us-central1-a'], ipMode: 'internal' });
    s.fake.setQuotaLimit('us-central1', 'IN_USE_ADDRESSES', 0);
    const [r] = await s.provider.check();
    expect(r).toMatchObject({ ready: true, reason: 'Ready' });
  });

  it.each([
    ['401', computeErrors.unauthenticated(), 'Unauthorized'],
    ['403', computeErrors.forbidden('compute.instances.list', 'projects/fake-project'), 'Forbidden'],
    ['API disabled', computeErrors.apiDisabled('fake-project'), 'APIDisabled'],
    ['500', computeErrors.internal(), 'APIError'],
  ])('reports %s as %s', async (_n, error, reason) => {
    s = await setup();
    s.fake.setGlobalError(error);
    const [r] = await s.provider.check();
    expect(r).toMatchObject({ ready: false, reason });
  });

  it('reports an unreachable endpoint as Unreachable and a timeout as Timeout', async () => {
    s = await setup();
    s.fake.setUnreachable(true);
    expect((await s.provider.check())[0]).toMatchObject({ ready: false, reason: 'Unreachable' });
    s.fake.setUnreachable(false);
    s.fake.block('instances.aggregatedList');
    const [r] = await s.provider.check({ signal: AbortSignal.timeout(200) });
    expect(r).toMatchObject({ ready: false, reason: 'Timeout' });
  });
});
