import { describe, expect, it } from 'vitest';
import type { StatusPageData, StatusPageMember } from './page-data.js';
import { applyPatch, UpdateStream } from './update-stream.js';

const member = (name: string, requests = 0): StatusPageMember => ({
  name,
  ready: true,
  cooledDown: false,
  traffic: { requests, bytes: requests * 100, errors: 0, requestsPerSecond: 0 },
});
const data = (members: StatusPageMember[], extra: Partial<StatusPageData> = {}): StatusPageData => ({
  updatedAt: new Date().toISOString(),
  pools: [{ pool: 'default/p', desired: members.length, ready: members.length, members }],
  providers: [{ name: 'local', ready: true, targets: [] }],
  events: [],
  ...extra,
});

describe('update stream', () => {
  it('sends only the members that changed, and nothing when only the time did', () => {
    const s = new UpdateStream();
    const members = Array.from({ length: 1000 }, (_, i) => member(`m${i}`));
    const first = data(members);
    expect(s.next(first)).toBeDefined();
    expect(s.next(data(members))).toBeUndefined();
    const busy = members.map((m, i) => (i === 7 ? member(m.name, 5) : m));
    const patch = s.next(data(busy));
    expect(patch?.pools[0]?.members).toEqual([member('m7', 5)]);
    expect(patch?.pools[0]).not.toHaveProperty('order');
    expect(patch).not.toHaveProperty('providers');
    // A few hundred bytes for one member of a thousand.
    expect(JSON.stringify(patch).length).toBeLessThan(1000);
    expect(applyPatch(first, patch as NonNullable<typeof patch>).pools).toEqual(data(busy).pools);
  });

  it('rebuilds the data a page holds through joins, departures, reorders, other pools, providers and events', () => {
    const s = new UpdateStream();
    const steps: StatusPageData[] = [
      data([member('a'), member('b')]),
      data([member('a', 3), member('b'), member('c')]),
      data([member('c'), member('a', 3)]),
      data([member('c'), member('a', 4)], { providers: [{ name: 'local', ready: false, targets: [] }] }),
      {
        ...data([member('c')]),
        pools: [
          { pool: 'default/q', desired: 1, ready: 0, members: [member('q1')] },
          { pool: 'default/p', desired: 1, ready: 1, members: [member('c')] },
        ],
        events: [{ time: 't', type: 'Warning', subject: 'default/c', reason: 'CooledDown', message: 'x' }],
      },
      data([]),
    ];
    let page: StatusPageData | undefined;
    for (const step of steps) {
      const patch = s.next(step);
      expect(patch).toBeDefined();
      page = page ? applyPatch(page, patch as NonNullable<typeof patch>) : step;
      expect(page).toEqual(step);
    }
  });
});
