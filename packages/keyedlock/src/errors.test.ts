import { describe, expect, it } from 'vitest';
import { describeValue, InvalidArgumentError } from './errors.js';

describe('InvalidArgumentError', () => {
  it('carries a stable code and is recognised by its registered marker', () => {
    const error = new InvalidArgumentError('bad');
    expect(error.code).toBe('KEYEDLOCK_INVALID_ARGUMENT');
    expect(error.name).toBe('InvalidArgumentError');
    expect(error).toBeInstanceOf(TypeError);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
  });

  it('recognises an error from another copy of the package by the marker alone', () => {
    const foreign = Object.assign(new TypeError('bad'), {
      [Symbol.for('@egress-proxies/keyedlock/InvalidArgumentError')]: true,
    });
    expect(InvalidArgumentError.isInstance(foreign)).toBe(true);
  });

  it('rejects look-alikes without the marker', () => {
    expect(InvalidArgumentError.isInstance(new TypeError('bad'))).toBe(false);
    expect(InvalidArgumentError.isInstance({ code: 'KEYEDLOCK_INVALID_ARGUMENT' })).toBe(false);
    expect(InvalidArgumentError.isInstance(null)).toBe(false);
    expect(InvalidArgumentError.isInstance('KEYEDLOCK_INVALID_ARGUMENT')).toBe(false);
  });
});

describe('describeValue', () => {
  it('names the kind of value without printing it', () => {
    expect(describeValue(undefined)).toBe('undefined');
    expect(describeValue(null)).toBe('null');
    expect(describeValue('secret-token')).toBe('a string');
    expect(describeValue(3)).toBe('a number');
    expect(describeValue([1])).toBe('an array');
    expect(describeValue({ a: 1 })).toBe('an object');
    expect(describeValue(Object.create(null))).toBe('an object');
    expect(describeValue(new Map())).toBe('an object (Map)');
    expect(describeValue(() => 1)).toBe('a function');
  });
});
