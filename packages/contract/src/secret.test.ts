import { format, inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Secret } from './secret.js';

const VALUE = 'PVEAPIToken=root@pam!op=11111111-2222-3333-4444-555555555555';

describe('Secret', () => {
  const s = new Secret(VALUE);

  it('reveals the value only through reveal()', () => {
    expect(s.reveal()).toBe(VALUE);
  });

  it.each([
    ['String()', () => String(s)],
    ['template literal', () => `token=${s}`],
    ['JSON.stringify', () => JSON.stringify({ token: s, nested: [s] })],
    ['util.inspect', () => inspect(s)],
    ['util.inspect nested, deep', () => inspect({ a: { b: { c: s } } }, { depth: 10, showHidden: true })],
    ['util.format %s %o %j', () => format('%s %o %j', s, s, { s })],
    ['string concatenation', () => 'x' + s],
  ])('%s never shows the value', (_name, render) => {
    const out = render();
    expect(out).toContain('[redacted]');
    expect(out).not.toContain('11111111');
  });

  it('has no enumerable property holding the value', () => {
    expect(Object.keys(s)).toEqual([]);
    expect(Object.values(s)).toEqual([]);
  });
});
