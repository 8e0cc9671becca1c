import { describe, expect, it } from 'vitest';
import { freeLoopbackAddress } from './loopback-egress.js';

describe('freeLoopbackAddress', () => {
  it('starts at 127.0.0.2 and fills gaps first', () => {
    expect(freeLoopbackAddress(new Set())).toBe('127.0.0.2');
    expect(freeLoopbackAddress(new Set(['127.0.0.2', '127.0.0.4']))).toBe('127.0.0.3');
  });
  it('has none when 2-254 are taken', () => {
    const all = new Set(Array.from({ length: 253 }, (_, i) => `127.0.0.${i + 2}`));
    expect(freeLoopbackAddress(all)).toBeUndefined();
  });
});
