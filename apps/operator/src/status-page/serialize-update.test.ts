import { describe, expect, it } from 'vitest';
import type { StatusPageData } from './page-data.js';
import { serializeUpdate } from './status-page-server.js';

const data = (at: string, ready: number): StatusPageData => ({
  updatedAt: at,
  pools: [{ pool: 'default/p', desired: 2, ready, members: [] }],
  providers: [{ name: 'local', ready: true, targets: [] }],
  events: [],
});

describe('serializeUpdate', () => {
  it('sends the whole data as JSON, keyed on everything but the time', () => {
    const a = serializeUpdate(data('2026-01-01T00:00:00.000Z', 1));
    expect(JSON.parse(a.json)).toEqual(data('2026-01-01T00:00:00.000Z', 1));
    // Another time alone is no change; a provider's or a pool's change is.
    expect(serializeUpdate(data('2026-01-01T00:00:01.000Z', 1)).key).toBe(a.key);
    expect(serializeUpdate(data('2026-01-01T00:00:00.000Z', 2)).key).not.toBe(a.key);
    const sick = {
      ...data('2026-01-01T00:00:00.000Z', 1),
      providers: [{ name: 'local', ready: false, targets: [] }],
    };
    expect(serializeUpdate(sick).key).not.toBe(a.key);
  });
});
