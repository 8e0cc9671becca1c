import { Secret } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { cloudInitWith, findLeak, newSentinel, printable } from './sentinels.js';

describe('sentinels', () => {
  const secret = newSentinel('token');
  const secrets = new Map([['the token', secret]]);

  it('are unique and embedded in the cloud-init', () => {
    expect(newSentinel('x')).not.toBe(newSentinel('x'));
    expect(cloudInitWith(secret)).toContain(secret);
    expect(cloudInitWith(secret).startsWith('#cloud-config\n')).toBe(true);
  });

  it('are found as is, in base64 and in hex', () => {
    expect(findLeak(`a ${secret} b`, secrets)).toBe('the token');
    expect(findLeak(Buffer.from(secret).toString('base64'), secrets)).toBe('the token');
    expect(findLeak(Buffer.from(secret).toString('hex'), secrets)).toBe('the token');
    expect(findLeak('nothing here', secrets)).toBeUndefined();
  });

  it('are found deep in an error cause chain and in nested fields, but not behind a Secret', () => {
    const inner = new Error(`backend said ${secret}`);
    const outer = new Error('create failed', { cause: inner });
    expect(findLeak(printable(outer), secrets)).toBe('the token');
    expect(findLeak(printable({ a: { b: [secret] } }), secrets)).toBe('the token');
    expect(findLeak(printable({ token: new Secret(secret) }), secrets)).toBeUndefined();
    const cyclic: Record<string, unknown> = { msg: 'x' };
    cyclic.self = cyclic;
    expect(() => printable(cyclic)).not.toThrow();
  });
});
