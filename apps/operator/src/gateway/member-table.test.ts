import { describe, expect, it } from 'vitest';
import { type GatewayMember, MemberTable } from './member-table.js';

const ms = (n: number): GatewayMember[] =>
  Array.from({ length: n }, (_, i) => ({ name: `crawl-${i}`, host: '127.0.0.1', port: 3000 + i }));

describe('MemberTable: sessions across replicas', () => {
  it('two replicas agree on every session, whatever each saw before', () => {
    let now = 0;
    const a = new MemberTable({ now: () => now });
    const b = new MemberTable({ now: () => now });
    a.setMembers(ms(5));
    for (let s = 0; s < 200; s++) a.choose(`s${s}`);
    // A member joins: replica a has history, replica b sees these sessions for the first time.
    now += 1000;
    a.setMembers(ms(6));
    b.setMembers([...ms(6)].reverse());
    for (let s = 0; s < 200; s++) expect(b.choose(`s${s}`)?.member.name).toBe(a.choose(`s${s}`)?.member.name);
  });

  it('a session moves when its member leaves, says so once, then stays', () => {
    let now = 0;
    const t = new MemberTable({ now: () => now, sessionTtlMs: 60_000 });
    t.setMembers(ms(4));
    const first = t.choose('alice')?.member.name as string;
    expect(t.choose('alice')).toEqual({ member: expect.objectContaining({ name: first }) });
    t.setMembers(ms(4).filter((m) => m.name !== first));
    now += 10;
    const moved = t.choose('alice');
    expect(moved?.movedFrom).toBe(first);
    expect(moved?.member.name).not.toBe(first);
    expect(t.choose('alice')).toEqual({ member: moved?.member });
    // Past the memory's TTL a change of member is not reported: the client was gone that long.
    t.setMembers(ms(4));
    now += 120_000;
    expect(t.choose('alice')?.movedFrom).toBeUndefined();
  });

  it("a shared cooldown mark excludes the member on every replica until the mark's end", () => {
    let now = 1_000;
    const marked: string[] = [];
    const a = new MemberTable({
      now: () => now,
      cooldownMs: 5_000,
      onCooldown: (m, _r, _u, origin) => marked.push(`${m}:${origin}`),
    });
    const b = new MemberTable({ now: () => now });
    a.setMembers(ms(3));
    b.setMembers(ms(3));
    const victim = a.choose('s-1')?.member.name as string;
    a.coolDown(victim, 'status-429');
    const mark = a.cooledDown();
    expect(mark).toEqual([{ member: victim, until: 6_000, reason: 'status-429' }]);
    b.applyMarks(mark);
    expect(marked).toEqual([`${victim}:local`]);
    for (let s = 0; s < 100; s++) {
      const pa = a.choose(`k${s}`)?.member.name;
      expect(pa).not.toBe(victim);
      expect(b.choose(`k${s}`)?.member.name).toBe(pa);
    }
    // Reading its own mark back changes nothing and is not a new cooldown.
    a.applyMarks(mark);
    expect(marked).toHaveLength(1);
    now = 6_000;
    expect(a.eligible()).toHaveLength(3);
    expect(b.eligible()).toHaveLength(3);
    expect(b.choose('s-1')?.member.name).toBe(victim);
  });

  it('reports every later end of a cooldown, local or shared, and nothing for an earlier one', () => {
    let now = 0;
    const reported: string[] = [];
    const t = new MemberTable({
      now: () => now,
      cooldownMs: 1_000,
      onCooldown: (m, reason, until, origin, change) =>
        reported.push(`${m} ${reason} ${until} ${origin} ${change}`),
    });
    t.setMembers(ms(2));
    t.coolDown('crawl-0', 'status-429');
    now = 400;
    t.coolDown('crawl-0', 'status-403');
    t.applyMarks([{ member: 'crawl-0', until: 1_200, reason: 'status-429' }]);
    t.applyMarks([{ member: 'crawl-0', until: 2_000, reason: 'connect-failed' }]);
    expect(reported).toEqual([
      'crawl-0 status-429 1000 local started',
      'crawl-0 status-403 1400 local extended',
      'crawl-0 connect-failed 2000 shared extended',
    ]);
    expect(t.cooledDown()).toEqual([{ member: 'crawl-0', until: 2_000, reason: 'connect-failed' }]);
  });

  it('ignores marks for members it does not have and marks already over', () => {
    const t = new MemberTable({ now: () => 100 });
    t.setMembers(ms(2));
    t.applyMarks([
      { member: 'elsewhere', until: 1_000, reason: 'status-403' },
      { member: 'crawl-0', until: 50, reason: 'status-403' },
    ]);
    expect(t.cooledDown()).toEqual([]);
  });

  it('reports a cooldown ending and a cooled member leaving', () => {
    let now = 0;
    const recovered: string[] = [];
    const t = new MemberTable({ now: () => now, cooldownMs: 10, onRecover: (m) => recovered.push(m) });
    t.setMembers(ms(3));
    t.coolDown('crawl-0', 'connect-failed');
    t.coolDown('crawl-1', 'connect-failed');
    t.setMembers(ms(3).filter((m) => m.name !== 'crawl-1'));
    expect(recovered).toEqual(['crawl-1']);
    now = 10;
    t.eligible();
    expect(recovered).toEqual(['crawl-1', 'crawl-0']);
  });

  it('configure changes the selection and the cooldown for what comes next', () => {
    let now = 0;
    const t = new MemberTable({ now: () => now, cooldownMs: 1_000 });
    t.setMembers(ms(3));
    t.configure({ cooldownMs: 50, selection: 'least-connections' });
    t.hold('crawl-0');
    t.hold('crawl-1');
    expect(t.choose()?.member.name).toBe('crawl-2');
    t.coolDown('crawl-2', 'status-403');
    expect(t.cooledDown()[0]?.until).toBe(50);
    now = 50;
    expect(t.eligible()).toHaveLength(3);
  });
});

describe('MemberTable: usage', () => {
  it('counts open connections and sessions within their TTL per member, and leaves idle members out', () => {
    let now = 0;
    const t = new MemberTable({ now: () => now, sessionTtlMs: 1000 });
    t.setMembers(ms(3));
    const sticky = t.choose('alice')?.member.name as string;
    const release = t.hold('crawl-2');
    t.hold('crawl-2');
    const usage = t.usage();
    expect(usage.get('crawl-2')?.connections).toBe(2);
    expect(usage.get(sticky)?.sessions).toBe(1);
    release();
    now += 1001;
    // The session is past its TTL; one connection stays open.
    expect(Object.fromEntries(t.usage())).toEqual({ 'crawl-2': { connections: 1, sessions: 0 } });
  });

  it('counts no session on a member taken out of the table (its sessions move), but its open connections', () => {
    const t = new MemberTable({ sessionTtlMs: 60_000 });
    t.setMembers(ms(2));
    const sticky = t.choose('alice')?.member.name as string;
    const release = t.hold(sticky);
    // Taken out (a drain): its tunnel stays counted until it ends; the session is no longer its.
    t.setMembers(ms(2).filter((m) => m.name !== sticky));
    expect(Object.fromEntries(t.busy())).toEqual({ [sticky]: 1 });
    release();
    expect(t.busy().size).toBe(0);
  });
});
