import { describe, expect, it } from 'vitest';
import { type PlanInput, type PlanMember, planPool, removalOrder } from './plan-pool.js';

const base = (over: Partial<PlanInput> = {}): PlanInput => ({
  replicas: 3,
  templateHash: 'h1',
  targets: [{ provider: 'local', weight: 1 }],
  maxSurge: 1,
  minReady: 0,
  recycleBanned: false,
  members: [],
  now: 1_000_000,
  ...over,
});
const m = (name: string, createdAt: number, ready = true, extra: Partial<PlanMember> = {}): PlanMember => ({
  name,
  provider: 'local',
  createdAt,
  ready,
  templateHash: 'h1',
  ...extra,
});

/** Applies plans until nothing changes, making every created member Ready at once (or never). */
function converge(input: PlanInput, readyOnCreate = true, steps = 20) {
  let members = [...input.members];
  let n = 0;
  const readyCounts: number[] = [];
  for (let i = 0; i < steps; i++) {
    const plan = planPool({ ...input, members });
    if (plan.create.length === 0 && plan.delete.length === 0) break;
    members = members.filter((x) => !plan.delete.some((d) => d.name === x.name));
    readyCounts.push(members.filter((x) => x.ready).length);
    for (const t of plan.create)
      members.push({
        name: `new-${n++}`,
        provider: t.provider,
        ...(t.zone ? { zone: t.zone } : {}),
        createdAt: input.now + n,
        ready: false,
        templateHash: input.templateHash,
      });
    if (readyOnCreate) members = members.map((x) => ({ ...x, ready: true }));
  }
  return { members, readyCounts };
}

describe('planPool: scaling', () => {
  it('creates up to replicas, spread by weight', () => {
    const plan = planPool(
      base({
        replicas: 4,
        targets: [
          { provider: 'a', weight: 3 },
          { provider: 'b', zone: 'z1', weight: 1 },
        ],
      }),
    );
    expect(plan.create.map((t) => t.provider).sort()).toEqual(['a', 'a', 'a', 'b']);
    expect(plan.create.find((t) => t.provider === 'b')?.zone).toBe('z1');
  });

  it('scales down newest-not-Ready first, then oldest', () => {
    const members = [
      m('old', 1),
      m('mid', 2),
      m('young-broken', 5, false),
      m('older-broken', 3, false),
      m('new', 4),
    ];
    expect(removalOrder(members).map((x) => x.name)).toEqual([
      'young-broken',
      'older-broken',
      'old',
      'mid',
      'new',
    ]);
    const plan = planPool(base({ replicas: 2, members }));
    expect(plan.delete.map((d) => d.name)).toEqual(['young-broken', 'older-broken', 'old']);
    expect(plan.create).toEqual([]);
  });

  it('is at rest when the pool matches', () => {
    expect(planPool(base({ members: [m('a', 1), m('b', 2), m('c', 3)] }))).toEqual({
      create: [],
      delete: [],
      doomed: [],
    });
  });
});

describe('planPool: rotation', () => {
  const day = 24 * 3600_000;
  it('replaces members past maxAge surge-first: the replacement is Ready before the old one goes', () => {
    const input = base({
      maxAgeMs: day,
      now: 10 * day,
      members: [m('a', 0), m('b', 9.5 * day), m('c', 9.6 * day)],
    });
    const first = planPool(input);
    expect(first.create).toHaveLength(1);
    expect(first.delete).toEqual([]);
    expect(first.doomed).toEqual(['a']);
    // The replacement exists but is not Ready: the old member stays.
    const waiting = planPool({ ...input, members: [...input.members, m('r', 10 * day, false)] });
    expect(waiting.delete).toEqual([]);
    expect(waiting.create).toEqual([]);
    // Ready now: the old one goes.
    const swap = planPool({ ...input, members: [...input.members, m('r', 10 * day, true)] });
    expect(swap.delete).toEqual([{ name: 'a', reason: 'replaced' }]);
  });

  it('rolls a whole template change without the Ready count falling below replicas or minReady', () => {
    const input = base({ templateHash: 'h2', minReady: 3, members: [m('a', 1), m('b', 2), m('c', 3)] });
    const { members, readyCounts } = converge(input);
    expect(members.map((x) => x.templateHash)).toEqual(['h2', 'h2', 'h2']);
    expect(Math.min(...readyCounts)).toBeGreaterThanOrEqual(3);
  });

  it('holds minReady when replacements never become Ready', () => {
    const input = base({
      templateHash: 'h2',
      minReady: 2,
      maxSurge: 2,
      members: [m('a', 1), m('b', 2), m('c', 3)],
    });
    const { members } = converge(input, false);
    expect(members.filter((x) => x.ready)).toHaveLength(3);
  });

  it('recycles the annotated member, and banned ones with onBan Recycle', () => {
    const members = [m('a', 1), m('b', 2), m('c', 3, true, { cooledDown: true })];
    expect(planPool(base({ recycle: 'b', members })).doomed).toEqual(['b']);
    expect(planPool(base({ members })).doomed).toEqual([]);
    expect(planPool(base({ recycleBanned: true, members })).doomed).toEqual(['c']);
  });

  it('deletes doomed members that are not Ready at once', () => {
    const plan = planPool(base({ templateHash: 'h2', members: [m('a', 1, false), m('b', 2), m('c', 3)] }));
    expect(plan.delete).toContainEqual({ name: 'a', reason: 'replaced' });
  });

  it('shrinks a fully outdated pool to fewer replicas', () => {
    const input = base({ replicas: 1, templateHash: 'h2', members: [m('a', 1), m('b', 2)] });
    const { members } = converge(input);
    expect(members.map((x) => x.templateHash)).toEqual(['h2']);
  });

  it('onDuplicateEgress Recycle replaces the younger of two Ready members seen from one address; Keep keeps both', () => {
    const members = [
      m('old', 1, true, { egressIP: '192.0.2.1' }),
      m('young', 2, true, { egressIP: '192.0.2.1' }),
      m('other', 3, true, { egressIP: '192.0.2.2' }),
    ];
    expect(planPool(base({ members })).doomed).toEqual([]);
    const plan = planPool(base({ members, recycleDuplicateEgress: true }));
    expect(plan.doomed).toEqual(['young']);
    // Surge first: the replacement is created, the duplicate goes once it is Ready.
    expect(plan.create).toHaveLength(1);
  });
});

describe('planPool: scaling during a rotation', () => {
  // Every pool of up to 4 members mid-rotation: each member up to date or due for replacement
  // (an old template), Ready or not.
  const kinds = ['keep-ready', 'keep-pending', 'doomed-ready', 'doomed-pending'] as const;
  const pools: PlanMember[][] = [[]];
  for (let size = 1; size <= 4; size++)
    for (let code = 0; code < kinds.length ** size; code++)
      pools.push(
        Array.from({ length: size }, (_, i) => {
          const kind = kinds[Math.floor(code / kinds.length ** i) % kinds.length] as string;
          return m(`n${i}`, i + 1, kind.endsWith('ready'), {
            templateHash: kind.startsWith('doomed') ? 'h0' : 'h1',
          });
        }),
      );
  const readyOf = (ms: readonly PlanMember[]) => ms.filter((x) => x.ready).length;
  /**
   * Steps until the pool is at rest with every member Ready: after each step's deletions, members
   * not Ready yet (the pending ones and those just created) become Ready, as they do over time.
   */
  const settle = (input: PlanInput) => {
    let members = [...input.members];
    const readyCounts: number[] = [];
    for (let i = 0; i < 30; i++) {
      const plan = planPool({ ...input, members });
      if (!plan.create.length && !plan.delete.length && members.every((x) => x.ready)) break;
      members = members.filter((x) => !plan.delete.some((d) => d.name === x.name));
      readyCounts.push(readyOf(members));
      members = [
        ...members.map((x) => ({ ...x, ready: true })),
        ...plan.create.map((t, j) => m(`new-${i}-${j}`, input.now + i, true, { provider: t.provider })),
      ];
    }
    return { members, readyCounts };
  };

  it('a step never takes Ready below minReady (or below the size asked for, when that is smaller)', () => {
    for (const members of pools)
      for (let replicas = 0; replicas <= 4; replicas++)
        for (let minReady = 0; minReady <= 4; minReady++) {
          const plan = planPool(base({ replicas, minReady, members }));
          const left = members.filter((x) => !plan.delete.some((d) => d.name === x.name));
          const floor = Math.min(minReady, replicas, readyOf(members));
          expect(
            readyOf(left),
            `${members.map((x) => `${x.name}:${x.templateHash}:${x.ready}`).join(' ')} to ${replicas}, minReady ${minReady}`,
          ).toBeGreaterThanOrEqual(floor);
        }
  });

  it('a scale-down mid-rotation ends at the new size, all up to date, even below minReady (an autoscaled pool going to sleep)', () => {
    for (const members of pools)
      for (let replicas = 0; replicas <= 3; replicas++)
        for (let minReady = 0; minReady <= 3; minReady++) {
          const end = settle(base({ replicas, minReady, members }));
          const what = `${members.map((x) => `${x.name}:${x.templateHash}:${x.ready}`).join(' ')} to ${replicas}, minReady ${minReady}`;
          expect(
            end.members.map((x) => x.templateHash),
            what,
          ).toEqual(Array(replicas).fill('h1'));
          const floor = Math.min(minReady, replicas, readyOf(members));
          expect(Math.min(floor, ...end.readyCounts), what).toBe(floor);
        }
  });
});
