import { describe, expect, it } from 'vitest';
import { distinctEgressCondition, duplicateEgress } from './distinct-egress.js';

const m = (name: string, createdAt: number, egressIP?: string, ready = true) => ({
  name,
  createdAt,
  ready,
  ...(egressIP ? { egressIP } : {}),
});

describe('DistinctEgress', () => {
  it('groups Ready members by the address seen, oldest first, and marks the younger', () => {
    const d = duplicateEgress([
      m('c', 3, '192.0.2.1'),
      m('a', 1, '192.0.2.1'),
      m('b', 2, '192.0.2.2'),
      m('d', 4, '192.0.2.2', false),
      m('e', 5),
    ]);
    expect(d.groups).toEqual([{ address: '192.0.2.1', members: ['a', 'c'] }]);
    expect([...d.younger]).toEqual(['c']);
  });

  it('is True, False naming the members and the address, or Unknown when nothing was seen', () => {
    expect(distinctEgressCondition([m('a', 1, '192.0.2.1'), m('b', 2, '192.0.2.2')])).toEqual({
      status: 'True',
      reason: 'DistinctEgress',
      message: '2 Ready members leave from 2 distinct addresses',
    });
    expect(distinctEgressCondition([m('a', 1, '192.0.2.1'), m('b', 2, '192.0.2.1')], 'Recycle')).toEqual({
      status: 'False',
      reason: 'DuplicateEgress',
      message: 'a and b both leave from 192.0.2.1 (recycling the younger)',
    });
    expect(distinctEgressCondition([m('a', 1), m('b', 2, '192.0.2.1', false)]).status).toBe('Unknown');
  });
});
