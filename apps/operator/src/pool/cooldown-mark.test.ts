import { describe, expect, it } from 'vitest';
import { formatCooldownMark, parseCooldownMark } from './cooldown-mark.js';

describe('cooled-down mark', () => {
  it('round-trips its start, reason and end', () => {
    const m = {
      at: Date.parse('2026-12-04T10:00:00Z'),
      reason: 'status-429',
      until: Date.parse('2026-12-04T11:00:00Z'),
    };
    expect(formatCooldownMark(m)).toBe('2026-12-04T10:00:00.000Z status-429 2026-12-04T11:00:00.000Z');
    expect(parseCooldownMark(formatCooldownMark(m), 5)).toEqual(m);
  });

  it('gives a mark without an end the pool cooldown from its start', () => {
    expect(parseCooldownMark('2026-12-04T10:00:00Z connect-failed', 60_000)).toEqual({
      at: Date.parse('2026-12-04T10:00:00Z'),
      reason: 'connect-failed',
      until: Date.parse('2026-12-04T10:01:00Z'),
    });
  });

  it('is no mark when the value is not one', () => {
    for (const v of [undefined, '', 'yesterday status-429', '2026-12-04T10:00:00Z status-429 soon'])
      expect(parseCooldownMark(v, 1000)).toBeUndefined();
  });
});
