import { describe, expect, it } from 'vitest';
import { parsePhaseLine } from './operator-process.js';

describe('parsePhaseLine', () => {
  it('keeps the phase word without the elapsed time', () => {
    expect(
      parsePhaseLine(
        '{"name":"a","provider":"hv","phase":"Provisioning 55s","address":"","healthy":"false","message":"starting"}',
        7,
      ),
    ).toEqual({ name: 'a', phase: 'Provisioning', address: '', message: 'starting', at: 7 });
  });

  it('reads the Deleted line, which has only name and phase', () => {
    expect(parsePhaseLine('{"name":"a","phase":"Deleted"}', 1)).toEqual({
      name: 'a',
      phase: 'Deleted',
      address: '',
      message: '',
      at: 1,
    });
  });

  it('ignores announcements and anything that is not a row', () => {
    expect(parsePhaseLine('{"ready":true,"proxies":1}', 1)).toBeUndefined();
    expect(parsePhaseLine('not json', 1)).toBeUndefined();
    expect(parsePhaseLine('null', 1)).toBeUndefined();
  });
});
