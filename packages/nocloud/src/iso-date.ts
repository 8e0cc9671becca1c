import { describeValue, SeedInputError } from './errors.js';

/**
 * The date written when the caller gives none: the Unix epoch, 1970-01-01T00:00:00Z.
 * A fixed default keeps the output byte-for-byte reproducible; callers that want the real
 * build time pass `options.date` explicitly.
 */
export const DEFAULT_DATE: Date = new Date(0);

// The 7-byte directory-record date stores the year as an offset from 1900 in one byte.
const MIN_YEAR = 1900;
const MAX_YEAR = 2155;

/** Throws unless `date` is a valid Date that every ISO 9660 date field can represent. */
export function checkDate(date: unknown, field: string): Date {
  if (!(date instanceof Date)) {
    throw new SeedInputError(field, `${field} must be a Date, got ${describeValue(date)}`);
  }
  const year = date.getUTCFullYear();
  if (Number.isNaN(date.getTime()) || year < MIN_YEAR || year > MAX_YEAR) {
    throw new SeedInputError(
      field,
      `${field} must be a valid Date between ${MIN_YEAR} and ${MAX_YEAR} (UTC), got ${Number.isNaN(year) ? 'an invalid Date' : `year ${year}`}`,
    );
  }
  return date;
}

/** ECMA-119 9.1.5: years since 1900, month, day, hour, minute, second, GMT offset (always UTC). */
export function putRecordingDate(buf: Uint8Array, off: number, date: Date): void {
  buf[off] = date.getUTCFullYear() - 1900;
  buf[off + 1] = date.getUTCMonth() + 1;
  buf[off + 2] = date.getUTCDate();
  buf[off + 3] = date.getUTCHours();
  buf[off + 4] = date.getUTCMinutes();
  buf[off + 5] = date.getUTCSeconds();
  buf[off + 6] = 0;
}

function digits(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/**
 * ECMA-119 8.4.26.1: 16 ASCII digits YYYYMMDDHHMMSSCC and a GMT offset byte. `null` writes
 * the "not specified" form (all digits zero, offset zero).
 */
export function putVolumeDate(buf: Uint8Array, off: number, date: Date | null): void {
  const text =
    date === null
      ? '0000000000000000'
      : digits(date.getUTCFullYear(), 4) +
        digits(date.getUTCMonth() + 1, 2) +
        digits(date.getUTCDate(), 2) +
        digits(date.getUTCHours(), 2) +
        digits(date.getUTCMinutes(), 2) +
        digits(date.getUTCSeconds(), 2) +
        digits(Math.floor(date.getUTCMilliseconds() / 10), 2);
  for (let i = 0; i < 16; i++) buf[off + i] = text.charCodeAt(i);
  buf[off + 16] = 0;
}
