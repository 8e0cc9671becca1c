import { describe, expect, it } from 'vitest';
import { SeedInputError } from './errors.js';
import { checkDate, DEFAULT_DATE, putRecordingDate, putVolumeDate } from './iso-date.js';

const when = new Date('2026-03-04T05:06:07.089Z');

describe('ISO 9660 dates', () => {
  it('writes the 7-byte recording date as years since 1900 ... seconds, in UTC', () => {
    const b = new Uint8Array(7);
    putRecordingDate(b, 0, when);
    expect([...b]).toEqual([126, 3, 4, 5, 6, 7, 0]);
  });

  it('writes the 17-byte volume date as digits with centiseconds and a zero GMT offset', () => {
    const b = new Uint8Array(17);
    putVolumeDate(b, 0, when);
    expect(String.fromCharCode(...b.subarray(0, 16))).toBe('2026030405060708');
    expect(b[16]).toBe(0);
  });

  it('writes "not specified" as sixteen zero digits', () => {
    const b = new Uint8Array(17).fill(9);
    putVolumeDate(b, 0, null);
    expect(String.fromCharCode(...b.subarray(0, 16))).toBe('0'.repeat(16));
    expect(b[16]).toBe(0);
  });

  it('defaults to the Unix epoch', () => {
    expect(DEFAULT_DATE.toISOString()).toBe('1970-01-01T00:00:00.000Z');
  });
});

describe('checkDate', () => {
  it('accepts the representable range 1900-2155', () => {
    expect(checkDate(new Date('1900-01-01T00:00:00Z'), 'd')).toBeInstanceOf(Date);
    expect(checkDate(new Date('2155-12-31T23:59:59Z'), 'd')).toBeInstanceOf(Date);
  });

  it.each([
    ['a string', '2026-01-01'],
    ['a number', 0],
    ['an invalid Date', new Date('nope')],
    ['year 1899', new Date('1899-12-31T23:59:59Z')],
    ['year 2156', new Date('2156-01-01T00:00:00Z')],
  ])('rejects %s, naming the field', (_, value) => {
    let caught: unknown;
    try {
      checkDate(value, 'options.date');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(TypeError);
    expect(SeedInputError.isInstance(caught)).toBe(true);
    expect((caught as SeedInputError).field).toBe('options.date');
    expect((caught as Error).message).toMatch(/^options\.date must be/);
  });
});
