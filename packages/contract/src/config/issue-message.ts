import type * as z from 'zod';
import { formatValue, typeName } from './format-value.js';

/** Marks the message of an `unrecognized_keys` issue so the formatter can split it per key. */
export const UNKNOWN_KEYS_PREFIX = '\u0000unknown-keys:';

type RawIssue = z.core.$ZodRawIssue;

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function sizeOf(value: unknown): number | undefined {
  if (typeof value === 'string' || Array.isArray(value)) return value.length;
  if (value && typeof value === 'object') return Object.keys(value).length;
  return undefined;
}

function knownKeys(issue: RawIssue): string[] {
  const shape = (issue.inst as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod
    ?.def?.shape;
  return shape ? Object.keys(shape) : [];
}

/**
 * The parse-level error map: one plain sentence per generic issue, naming the bad value. Rules
 * with their own wording (patterns, ranges across fields) set it on the schema, which wins over
 * this map.
 */
export function issueMessage(issue: RawIssue): string {
  const input = issue.input;
  switch (issue.code) {
    case 'invalid_type': {
      if (input === undefined) return 'required';
      const expected = issue.expected === 'int' ? 'an integer' : issue.expected;
      if (issue.expected === 'int' && typeof input === 'number') {
        return `must be an integer, got ${formatValue(input)}`;
      }
      return `expected ${expected}, got ${typeName(input)} ${formatValue(input)}`;
    }
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string') {
        return min <= 1
          ? 'must not be empty'
          : `must be at least ${min} characters, got ${formatValue(input)}`;
      }
      if (issue.origin === 'array' || issue.origin === 'set') {
        return `needs at least ${plural(min, 'entry', 'entries')}, got ${sizeOf(input) ?? 0}`;
      }
      return `must be ${issue.inclusive ? '>=' : '>'} ${min}, got ${formatValue(input)}`;
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') {
        return `must be at most ${max} characters, got ${sizeOf(input)} (${formatValue(input)})`;
      }
      if (issue.origin === 'array' || issue.origin === 'set') {
        return `allows at most ${plural(max, 'entry', 'entries')}, got ${sizeOf(input)}`;
      }
      return `must be ${issue.inclusive ? '<=' : '<'} ${max}, got ${formatValue(input)}`;
    }
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => formatValue(v)).join(', ')}, got ${formatValue(input)}`;
    case 'invalid_format':
      return `${formatValue(input)} is not a valid ${issue.format}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}, got ${formatValue(input)}`;
    case 'unrecognized_keys':
      return `${UNKNOWN_KEYS_PREFIX}${knownKeys(issue).join(', ')}`;
    case 'invalid_key': {
      const why = issue.issues.map((i) => i.message).join('; ');
      return `invalid key ${formatValue(input)}${why ? `: ${why}` : ''}`;
    }
    case 'invalid_union':
      return `${formatValue(input)} matches none of the allowed forms`;
    default:
      return `invalid value ${formatValue(input)}`;
  }
}
