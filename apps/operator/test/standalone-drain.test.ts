import { writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMBER_HEADER, MOVED_HEADER } from '../src/gateway/gateway-server.js';
import { SESSION_HEADER } from '../src/gateway/session.js';
import { SessionTable, sessionHash } from '../src/gateway/session-table.js';
import { StandalonePoolHarness } from './support/standalone-pool-harness.js';
import { echoes, getVia, startTcpEcho, tunnelVia } from './support/through-gateway.js';

// A scale-down under `up` over real local proxies: the members nobody uses go first, and a member
// still carrying a tunnel is drained (no new work, its tunnel goes on) before it is deleted.
const h = new StandalonePoolHarness('ep-drain-', { min: 24480, max: 24489 });
let tcp: Awaited<ReturnType<typeof startTcpEcho>>;
const tunnels: Socket[] = [];

const pool = (replicas: number) => h.poolDoc('drain', replicas, '');
const view = () => h.sa?.pools.views().find((p) => p.key === 'default/drain');
const names = () => view()?.members.map((m) => m.name) ?? [];

beforeAll(async () => {
  await h.setup();
  tcp = await startTcpEcho();
});
afterAll(async () => {
  for (const s of tunnels) s.destroy();
  await tcp?.close();
  await h.close();
});

describe('scale-down under up', () => {
  it('removes the member with no tunnels first, then drains the busy one until its tunnel ends', async () => {
    writeFileSync(h.docsPath, pool(3));
    // The drain timeout is far off: this member goes because its tunnel ended, not at the timeout.
    const sa = await h.start({ poolIntervalMs: 200, poolDrainTimeoutMs: 600_000 });
    const v3 = await h.waitFor('3 Ready members routed by the gateway', () => {
      const v = view();
      const routed = sa.pools.gateway('default/drain')?.members.eligible().length;
      return v?.ready === 3 && v.members.length === 3 && routed === 3 ? v : undefined;
    });
    const port = Number(new URL(v3.gateway as string).port);
    const gw = sa.pools.gateway('default/drain');
    // By age alone (the order without the gateway's usage) `a` would go first, then `b`.
    const [a, b, c] = [...v3.members]
      .sort((x, y) => (x.createdAt ?? '').localeCompare(y.createdAt ?? '') || x.name.localeCompare(y.name))
      .map((m) => m.name);

    // Tunnels through `a` and `c` (round-robin hands each new tunnel to the next member); any
    // other is closed, so `b` carries nothing.
    const through = new Map<string, Socket>();
    for (let i = 0; i < 12 && !(through.has(a as string) && through.has(c as string)); i++) {
      const t = await tunnelVia(port, tcp.target);
      tunnels.push(t.socket);
      expect(t.status).toBe(200);
      const member = t.headers[MEMBER_HEADER] as string;
      if (member === b || through.has(member)) t.socket.destroy();
      else through.set(member, t.socket);
    }
    const viaA = through.get(a as string) as Socket;
    const viaC = through.get(c as string) as Socket;
    expect(viaA && viaC).toBeTruthy();
    await h.waitFor('the closed tunnels released', () => {
      const u = gw?.members.usage();
      return u?.get(a as string)?.connections === 1 && !u.get(b as string) ? true : undefined;
    });

    // Scale down by one: `b`, which carries nothing, goes; `a` stays, undrained.
    writeFileSync(h.docsPath, pool(2));
    const v2 = await h.waitFor('2 members', () => (names().length === 2 ? view() : undefined));
    expect(v2.members.map((m) => m.name).sort()).toEqual([a, c].sort());
    expect(v2.draining).toBeUndefined();
    await echoes(viaA, 'still through a');

    // A sticky session on each (a session's member is a function of the member names alone),
    // so both stay equally busy: a tunnel and a session each.
    const table = new SessionTable([a as string, c as string]);
    const sessionOn = (member: string) => {
      for (let i = 0; ; i++) if (table.names[table.lookup(sessionHash(`s${i}`))] === member) return `s${i}`;
    };
    const [onA, onC] = [sessionOn(a as string), sessionOn(c as string)];
    for (const [session, member] of [
      [onA, a],
      [onC, c],
    ]) {
      const r = await getVia(port, h.echo.url, { headers: { [SESSION_HEADER]: session as string } });
      expect(r.headers[MEMBER_HEADER]).toBe(member);
    }

    // Again: both carry a tunnel and a session, `a` (the older) goes; it is drained, not deleted.
    writeFileSync(h.docsPath, pool(1));
    await h.waitFor('a draining', () => view()?.draining?.includes(a as string));
    await h.waitFor('the gateway routing only c', () => {
      const routed = gw?.members.members().map((m) => m.name);
      return routed?.length === 1 && routed[0] === c;
    });
    // Its open tunnel keeps working; its session moves to `c` (and says so); new requests and
    // tunnels go to `c` only.
    await echoes(viaA, 'a drains, its tunnel goes on');
    const moved = await getVia(port, h.echo.url, { headers: { [SESSION_HEADER]: onA as string } });
    expect(moved.status, moved.body).toBe(200);
    expect([moved.headers[MEMBER_HEADER], moved.headers[MOVED_HEADER]]).toEqual([c, a]);
    for (let i = 0; i < 4; i++) {
      const r = await getVia(port, h.echo.url);
      expect(r.status, r.body).toBe(200);
      expect(r.headers[MEMBER_HEADER]).toBe(c);
    }
    const fresh = await tunnelVia(port, tcp.target);
    tunnels.push(fresh.socket);
    expect(fresh.headers[MEMBER_HEADER]).toBe(c);
    fresh.socket.destroy();
    // Rounds go by and `a` stays while its tunnel is open.
    await sa.pools.step();
    await sa.pools.step();
    expect(names()).toContain(a);
    await echoes(viaA, 'a still drains');

    // The tunnel ends: `a` is deleted; `c` still carries its own.
    viaA.destroy();
    const v1 = await h.waitFor('a deleted', () => (names().length === 1 ? view() : undefined));
    expect(v1.members.map((m) => m.name)).toEqual([c]);
    expect(v1.draining).toBeUndefined();
    await echoes(viaC, 'c serves on');
  }, 240_000);
});
