import { describe, expect, it } from 'vitest';
import { formatMark, MARK_NAMESPACE, readMark } from './mark.js';

describe('the reference mark', () => {
  it('round-trips uid, createdAt and installation, escaping attribute text', () => {
    const createdAt = new Date('2025-01-02T03:04:05.000Z');
    const r = readMark(formatMark({ uid: 'a"b<c>&d', createdAt, installation: 'cluster-1' }));
    expect(r).toEqual({ kind: 'marked', mark: { uid: 'a"b<c>&d', createdAt, installation: 'cluster-1' } });
  });

  it('reads no metadata or another namespace as unmarked, and garbage (blank text too) as unreadable', () => {
    expect(readMark(undefined).kind).toBe('unmarked');
    expect(readMark('').kind).toBe('unreadable');
    expect(readMark('  \n ').kind).toBe('unreadable');
    expect(readMark('<instance xmlns="https://other.example/ns" managed="true" uid="x"/>').kind).toBe(
      'unmarked',
    );
    expect(readMark('<instance managed="true" uid=').kind).toBe('unreadable');
    expect(readMark(`<instance xmlns="${MARK_NAMESPACE}" managed="false" uid="x"/>`).kind).toBe('unmarked');
  });

  it('keeps an empty UID and drops an unparsable createdAt', () => {
    const r = readMark(`<instance xmlns="${MARK_NAMESPACE}" managed="true" uid="" createdAt="yesterday"/>`);
    expect(r).toEqual({ kind: 'marked', mark: { uid: '' } });
  });
});
