import { describe, expect, it } from 'vitest';
import { newProxy } from '../../../test/support/reconcile-fixture.js';
import { ChangeFilter } from './change-filter.js';

describe('ChangeFilter', () => {
  it('ignores a status-only change (our own write) and lets through what a pass acts on', () => {
    const f = new ChangeFilter();
    const p = newProxy({}, 'x');
    f.seen('ns1/x', p);
    const statusOnly = { ...structuredClone(p), status: { phase: 'Provisioning' as const } };
    statusOnly.metadata.resourceVersion = '7';
    expect(f.changed('ns1/x', statusOnly)).toBe(false);
    const variants: Array<(q: typeof p) => void> = [
      (q) => {
        q.metadata.generation = 2;
      },
      (q) => {
        q.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
      },
      (q) => {
        q.metadata.finalizers = ['egress-proxies.dev/finalizer'];
      },
      (q) => {
        q.metadata.annotations = { 'egress-proxies.dev/force-remove-finalizer': 'true' };
      },
      (q) => {
        q.metadata.labels = { poke: '1' };
      },
      (q) => {
        q.metadata.uid = 'uid-other';
      },
    ];
    for (const change of variants) {
      const q = structuredClone(p);
      change(q);
      f.seen('ns1/x', p);
      expect(f.changed('ns1/x', q)).toBe(true);
      // The same object again is no news.
      expect(f.changed('ns1/x', q)).toBe(false);
    }
    expect(f.changed('ns1/x', undefined)).toBe(true);
  });
});
