import { ascii, ucs2be } from './bytes.js';

const D_CHAR = /[A-Z0-9_]/;

/**
 * The plain ISO 9660 (interchange level 1) identifier for a file name: at most 8 d-characters,
 * a dot, at most 3 for the extension, and version `;1`. This is only the fallback a reader
 * without Rock Ridge or Joliet sees (`user-data` becomes `USER_DAT.;1`).
 */
export function level1Identifier(name: string): string {
  const dot = name.lastIndexOf('.');
  const base = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot + 1) : '';
  const clean = (part: string, max: number) =>
    Array.from(part.toUpperCase(), (c) => (D_CHAR.test(c) ? c : '_'))
      .join('')
      .slice(0, max);
  return `${clean(base, 8) || '_'}.${clean(ext, 3)};1`;
}

/**
 * ECMA-119 9.3 orders directory records by file name then extension, each compared as if
 * padded with spaces, then by version.
 */
export function compareLevel1(a: string, b: string): number {
  const split = (id: string) => {
    const semi = id.indexOf(';');
    const body = semi >= 0 ? id.slice(0, semi) : id;
    const dot = body.indexOf('.');
    return dot >= 0 ? [body.slice(0, dot), body.slice(dot + 1)] : [body, ''];
  };
  const [an = '', ae = ''] = split(a);
  const [bn = '', be = ''] = split(b);
  const pad = (s: string, n: number) => s.padEnd(n, ' ');
  const nameLen = Math.max(an.length, bn.length);
  const byName = cmp(pad(an, nameLen), pad(bn, nameLen));
  if (byName !== 0) return byName;
  const extLen = Math.max(ae.length, be.length);
  return cmp(pad(ae, extLen), pad(be, extLen));
}

/** Joliet orders by UCS-2 code units, which is JavaScript's native string order. */
export function compareJoliet(a: string, b: string): number {
  return cmp(a, b);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function level1IdentifierBytes(name: string): Uint8Array {
  return ascii(level1Identifier(name));
}

/**
 * Joliet names carry no `;1` version suffix: every reader then lists the bare name, and
 * Linux strips the suffix anyway when one is present.
 */
export function jolietIdentifierBytes(name: string): Uint8Array {
  return ucs2be(name);
}
