import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SeedInputError } from './errors.js';
import { instanceIdFor } from './instance-id.js';
import { metaData } from './meta-data.js';

describe('instanceIdFor', () => {
  it('is the name and the first 16 hex digits of SHA-256(name NUL uid)', () => {
    const uid = '3f1c1b8e-2a4d-4c39-9a0e-6f1b2c3d4e5f';
    const digest = createHash('sha256').update(`proxy-abc\0${uid}`).digest('hex');
    expect(instanceIdFor('proxy-abc', uid)).toBe(`proxy-abc-${digest.slice(0, 16)}`);
  });

  it('is stable for the same proxy and changes with a new UID or another name', () => {
    const a = instanceIdFor('proxy-abc', 'uid-1');
    expect(instanceIdFor('proxy-abc', 'uid-1')).toBe(a);
    expect(instanceIdFor('proxy-abc', 'uid-2')).not.toBe(a);
    expect(instanceIdFor('proxy-abd', 'uid-1').slice(-16)).not.toBe(a.slice(-16));
  });

  it('separates name and uid so shifting characters between them changes the id', () => {
    expect(instanceIdFor('proxy-a', 'buid').slice(-16)).not.toBe(instanceIdFor('proxy-ab', 'uid').slice(-16));
  });

  it('produces an id that metaData accepts', () => {
    const id = instanceIdFor('proxy-0123456789abcdef.example', 'u');
    expect(() => metaData({ instanceId: id, hostname: 'proxy-0' })).not.toThrow();
  });

  it.each([
    ['name', () => instanceIdFor('Proxy_A', 'u')],
    ['name', () => instanceIdFor('', 'u')],
    ['name', () => instanceIdFor(7 as never, 'u')],
    ['uid', () => instanceIdFor('proxy-a', '')],
    ['uid', () => instanceIdFor('proxy-a', undefined as never)],
  ])('rejects a bad %s', (field, f) => {
    let caught: unknown;
    try {
      f();
    } catch (err) {
      caught = err;
    }
    expect(SeedInputError.isInstance(caught)).toBe(true);
    expect((caught as SeedInputError).field).toBe(field);
  });
});
