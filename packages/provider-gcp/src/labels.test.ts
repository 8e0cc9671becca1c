import { describe, expect, it } from 'vitest';
import { derivedRequestId, labelValue } from './labels.js';

describe('labelValue', () => {
  it('keeps a valid value as it is', () => {
    expect(labelValue('0f8fad5b-d9cb-469f-a165-70867728950e')).toBe('0f8fad5b-d9cb-469f-a165-70867728950e');
  });

  it('makes anything a valid, distinct GCE label value', () => {
    const a = labelValue('Cluster.Example/ONE');
    const b = labelValue('cluster-example-one');
    expect(a).toMatch(/^[a-z0-9_-]{0,63}$/);
    expect(a).not.toBe(b);
    const long = labelValue('x'.repeat(100));
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(/^[a-z0-9_-]+$/);
    expect(labelValue('y'.repeat(100))).not.toBe(long);
  });
});

describe('derivedRequestId', () => {
  it('is a UUID, stable for the same parts, different for others', () => {
    const a = derivedRequestId('insert', 'uid-1', 'z', 'n');
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(derivedRequestId('insert', 'uid-1', 'z', 'n')).toBe(a);
    expect(derivedRequestId('insert', 'uid-2', 'z', 'n')).not.toBe(a);
    // The separator keeps ('ab','c') and ('a','bc') apart.
    expect(derivedRequestId('ab', 'c')).not.toBe(derivedRequestId('a', 'bc'));
  });
});
