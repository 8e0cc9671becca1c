import { afterEach, describe, expect, it } from 'vitest';
import { IMAGE, rejection, request, type Setup, setup } from './helpers.js';

let s: Setup;
afterEach(async () => {
  await s?.close();
});

describe('configured zones and catalogues', () => {
  it('places in the only configured zone by default and resolves catalogue keys', async () => {
    s = await setup({
      zones: ['europe-west1-b'],
      machineTypes: { small: 'e2-small' },
      images: { ubuntu: IMAGE },
    });
    const req = request({ placement: { machineType: 'small', image: 'ubuntu' } });
    expect(await s.provider.create(req)).toBe(`zones/europe-west1-b/instances/${req.name}`);
    const body = s.fake.instance('europe-west1-b', req.name)!;
    expect(body.machineType).toBe('zones/europe-west1-b/machineTypes/e2-small');
    expect(
      (body.disks![0] as { initializeParams: { sourceImage: string } }).initializeParams.sourceImage,
    ).toBe(IMAGE);
  });

  it('an ID in a zone that is not configured: Get Permanent INVALID_ID, Delete a no-op, List leaves it out', async () => {
    s = await setup({ zones: ['us-central1-a'] });
    const req = request();
    const inside = await s.provider.create(req);
    s.fake.putInstance('europe-west1-b', {
      name: 'proxy-bbbbbbbbbbbbbbbb',
      labels: { 'proxy-operator-managed': 'true', 'proxy-operator-uid': 'u' },
    });
    const outside = 'zones/europe-west1-b/instances/proxy-bbbbbbbbbbbbbbbb';
    s.fake.clearCalls();
    expect(await rejection(s.provider.get(outside))).toMatchObject({ kind: 'Permanent', code: 'INVALID_ID' });
    await s.provider.delete(outside);
    expect(s.fake.calls).toEqual([]);
    expect(s.fake.instance('europe-west1-b', 'proxy-bbbbbbbbbbbbbbbb')).toBeDefined();
    expect((await s.provider.listByTag()).map((i) => i.id)).toEqual([inside]);
  });
});
