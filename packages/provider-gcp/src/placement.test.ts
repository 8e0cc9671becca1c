import { type CreateRequest, ErrorCode, type ProviderError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { parseGcpConfig } from './config.js';
import { placementFieldOf } from './create.js';
import { checkMachineTypeZone, validateCreateRequest as validate } from './placement.js';

const plain = parseGcpConfig({ project: 'my-project' });
const validateCreateRequest = (req: CreateRequest) => {
  const p = validate(req, plain);
  checkMachineTypeZone(p.machineType, p.zone);
  return p;
};

const good: CreateRequest = {
  name: 'proxy-0123456789abcdef',
  namespace: 'ns',
  uid: 'u-1',
  port: 3128,
  placement: {
    zone: 'us-central1-a',
    machineType: 'e2-small',
    image: 'projects/debian-cloud/global/images/family/debian-12',
  },
};

describe('validateCreateRequest', () => {
  it('accepts names, zonal paths, image names, families and URLs', () => {
    expect(validateCreateRequest(good)).toEqual({
      zone: 'us-central1-a',
      machineType: 'e2-small',
      image: good.placement.image,
    });
    for (const image of [
      'global/images/my-image',
      'projects/ubuntu-os-cloud/global/images/ubuntu-2404-noble-amd64-v20251001',
      'https://www.googleapis.com/compute/v1/projects/ubuntu-os-cloud/global/images/family/ubuntu-2404-lts-amd64',
    ]) {
      expect(validateCreateRequest({ ...good, placement: { ...good.placement, image } }).image).toBe(image);
    }
    expect(
      validateCreateRequest({
        ...good,
        placement: { ...good.placement, machineType: 'zones/us-central1-a/machineTypes/e2-small' },
      }),
    ).toBeTruthy();
  });

  it.each([
    [{ zone: undefined }, 'zone'],
    [{ zone: 'us-central1' }, 'zone'],
    [{ zone: 'nowhere' }, 'zone'],
    [{ machineType: undefined }, 'machineType'],
    [{ machineType: 'E2 Small' }, 'machineType'],
    [{ machineType: 'zones/us-east1-b/machineTypes/e2-small' }, 'machineType'],
    [{ image: undefined }, 'image'],
    [{ image: 'ubuntu' }, 'image'],
    [{ image: 'projects/x/global/snapshots/s' }, 'image'],
  ])('rejects %j as Permanent naming placement.%s', (patch, field) => {
    try {
      validateCreateRequest({ ...good, placement: { ...good.placement, ...patch } });
      throw new Error('accepted');
    } catch (err) {
      expect((err as ProviderError).kind).toBe('Permanent');
      expect((err as ProviderError).code).toBe(ErrorCode.InvalidPlacement);
      expect((err as Error).message).toContain(`placement.${field}`);
    }
  });

  it.each([
    [{ name: 'Proxy_1' }, 'name'],
    [{ uid: '' }, 'uid'],
    [{ port: 0 }, 'port'],
    [{ port: 70000 }, 'port'],
  ])('rejects request %j naming %s', (patch, field) => {
    expect(() => validateCreateRequest({ ...good, ...patch } as CreateRequest)).toThrow(field);
  });
});

describe('validateCreateRequest with catalogues', () => {
  const cfg = parseGcpConfig({
    project: 'my-project',
    zones: ['europe-west1-b'],
    machineTypes: { small: 'e2-small' },
    images: { ubuntu: 'projects/ubuntu-os-cloud/global/images/family/ubuntu-2404-lts-amd64' },
  });

  it('resolves keys and defaults the only configured zone', () => {
    expect(validate({ ...good, placement: { machineType: 'small', image: 'ubuntu' } }, cfg)).toEqual({
      zone: 'europe-west1-b',
      machineType: 'e2-small',
      image: 'projects/ubuntu-os-cloud/global/images/family/ubuntu-2404-lts-amd64',
    });
  });

  it.each([
    [{ zone: 'us-central1-a', machineType: 'small', image: 'ubuntu' }, 'zone', 'configured zones'],
    [{ zone: 'europe-west1-b', machineType: 'e2-small', image: 'ubuntu' }, 'machineType', '"small"'],
    [{ zone: 'europe-west1-b', machineType: 'toString', image: 'ubuntu' }, 'machineType', 'catalogue'],
    [{ zone: 'europe-west1-b', machineType: 'small', image: 'debian' }, 'image', '"ubuntu"'],
  ])('refuses %j naming placement.%s and the choices', (placement, field, choices) => {
    try {
      validate({ ...good, placement }, cfg);
      throw new Error('accepted');
    } catch (err) {
      expect((err as ProviderError).code).toBe(ErrorCode.InvalidPlacement);
      expect((err as Error).message).toContain(`placement.${field}`);
      expect((err as Error).message).toContain(choices);
    }
  });
});

describe('placementFieldOf', () => {
  it.each([
    ["The resource 'projects/p/zones/us-central1-a/machineTypes/e2-nope' was not found", 'machineType'],
    ["The resource 'projects/debian-cloud/global/images/family/nope' was not found", 'image'],
    ["The resource 'projects/p/zones/us-central9-z' was not found", 'zone'],
    ['Something else', undefined],
  ])('%s -> %s', (msg, want) => expect(placementFieldOf(msg)).toBe(want));
});
