import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  echoes,
  egressVia,
  getVia,
  heldAnswer,
  startEchoTarget,
  startMember,
  startTcpEcho,
  type TestMember,
  tunnelVia,
} from '../../test/support/through-gateway.js';
import { ProxyUsers } from './basic-auth.js';
import {
  GatewayConfigError,
  MEMBER_HEADER,
  MOVED_HEADER,
  type RunningGateway,
  startGateway,
} from './gateway-server.js';
import type { GatewayMember, Selection } from './member-table.js';
import { SESSION_HEADER } from './session.js';

let members: TestMember[] = [];
let target: Awaited<ReturnType<typeof startEchoTarget>>;
let tcp: Awaited<ReturnType<typeof startTcpEcho>>;
const gateways: RunningGateway[] = [];

beforeAll(async () => {
  members = await Promise.all(['m-a', 'm-b', 'm-c'].map((n, i) => startMember(n, `127.0.0.${11 + i}`)));
  target = await startEchoTarget();
  tcp = await startTcpEcho();
});
afterAll(async () => {
  await Promise.all(members.map((m) => m.kill()));
  await target.close();
  await tcp.close();
});
afterEach(async () => {
  target.banned.clear();
  await Promise.all(gateways.splice(0).map((g) => g.close(0)));
});

async function gateway(
  opts: Partial<Parameters<typeof startGateway>[0]> = {},
  list: GatewayMember[] = members,
) {
  const g = await startGateway({ pool: 'test', ...opts });
  g.members.setMembers(list);
  gateways.push(g);
  return g;
}

/** Until the gateway holds no connection (the counters are written when a tunnel closes). */
async function waitForClose(g: RunningGateway) {
  while (g.openConnections() > 0) await new Promise((r) => setTimeout(r, 10));
}

const count = (xs: string[]) => xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>());

describe('gateway: rotation', () => {
  it.each<Selection>(['round-robin', 'least-connections'])(
    '%s sends consecutive requests to every member in turn',
    async (selection) => {
      const g = await gateway({ selection });
      const seen: string[] = [];
      for (let i = 0; i < 6; i++) seen.push(await egressVia(g.port, target.url));
      expect(count(seen)).toEqual(new Map(members.map((m) => [m.localAddress, 2])));
    },
  );

  it('random reaches every member', async () => {
    const g = await gateway({ selection: 'random' });
    const seen = new Set<string>();
    for (let i = 0; i < 60 && seen.size < 3; i++) seen.add(await egressVia(g.port, target.url));
    expect(seen).toEqual(new Set(members.map((m) => m.localAddress)));
  });

  it('tunnels rotate too, and carry bytes both ways', async () => {
    const g = await gateway();
    const via = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const t = await tunnelVia(g.port, tcp.target);
      expect(t.status).toBe(200);
      via.add(t.headers[MEMBER_HEADER] ?? '');
      await echoes(t.socket, `hello ${i}`);
      t.socket.destroy();
    }
    expect(via).toEqual(new Set(['m-a', 'm-b', 'm-c']));
  });
});

describe('gateway: the tunnel data path', () => {
  it('carries 8 MiB both ways intact to a reader that keeps pausing, then passes on the end', async () => {
    const g = await gateway();
    const t = await tunnelVia(g.port, tcp.target);
    expect(t.status).toBe(200);
    const sent = randomBytes(8 << 20);
    const chunks: Buffer[] = [];
    let got = 0;
    const done = new Promise<void>((resolve, reject) => {
      t.socket.on('data', (c: Buffer) => {
        chunks.push(c);
        got += c.length;
        // A slow reader: the gateway must hold the member back, not buffer everything itself.
        t.socket.pause();
        setTimeout(() => t.socket.resume(), got % 3 === 0 ? 5 : 0);
        if (got >= sent.length) resolve();
      });
      t.socket.on('error', reject);
    });
    t.socket.write(sent);
    await done;
    expect(Buffer.concat(chunks).equals(sent)).toBe(true);
    // The echo ends its side once ours ends: the end travels through the gateway both ways.
    const ended = new Promise<void>((r) => t.socket.once('end', () => r()));
    t.socket.end();
    await ended;
    await waitForClose(g);
    const text = await g.metrics.registry.metrics();
    expect(text).toMatch(
      /egress_proxies_gateway_bytes_total\{pool="test",member="m-[abc]",direction="down"\} 8388608/,
    );
    expect(text).toMatch(
      /egress_proxies_gateway_bytes_total\{pool="test",member="m-[abc]",direction="up"\} 8388608/,
    );
  });

  it('keeps small pieces intact while the reader is away (queued writes keep their read buffers)', async () => {
    const g = await gateway();
    const t = await tunnelVia(g.port, tcp.target);
    t.socket.pause();
    const sent = randomBytes(16 << 20);
    // Many small writes: each comes back as a small read that queues behind the stalled client.
    for (let i = 0; i < sent.length; i += 4096) {
      if (!t.socket.write(sent.subarray(i, i + 4096))) await new Promise((r) => setTimeout(r, 1));
    }
    await new Promise((r) => setTimeout(r, 200));
    const chunks: Buffer[] = [];
    let got = 0;
    await new Promise<void>((resolve) => {
      t.socket.on('data', (c: Buffer) => {
        chunks.push(c);
        got += c.length;
        if (got >= sent.length) resolve();
      });
      t.socket.resume();
    });
    expect(Buffer.concat(chunks).equals(sent)).toBe(true);
    t.socket.destroy();
  });
});

describe('gateway: sticky sessions', () => {
  it('a session in the username sticks to one member, and moves (saying so) when that member leaves', async () => {
    const g = await gateway();
    const as = { user: 'alice-session-s42', password: 'x' };
    const first = await getVia(g.port, target.url, as);
    const pinned = first.headers[MEMBER_HEADER] as string;
    for (let i = 0; i < 4; i++)
      expect((await getVia(g.port, target.url, as)).headers[MEMBER_HEADER]).toBe(pinned);
    g.members.setMembers(members.filter((m) => m.name !== pinned));
    const moved = await getVia(g.port, target.url, as);
    expect(moved.status).toBe(200);
    expect(moved.headers[MEMBER_HEADER]).not.toBe(pinned);
    expect(moved.headers[MOVED_HEADER]).toBe(pinned);
    // Once moved, it sticks to the new member and stops saying it moved.
    const again = await getVia(g.port, target.url, as);
    expect(again.headers[MEMBER_HEADER]).toBe(moved.headers[MEMBER_HEADER]);
    expect(again.headers[MOVED_HEADER]).toBeUndefined();
  });

  it('the session header works like the username suffix and is not forwarded', async () => {
    const g = await gateway();
    const ips = new Set<string>();
    for (let i = 0; i < 3; i++)
      ips.add(await egressVia(g.port, target.url, { headers: { 'x-egress-session': 'hdr-1' } }));
    expect(ips.size).toBe(1);
  });

  it('two replicas pick the same member for each session without talking to each other', async () => {
    const a = await gateway();
    // The second replica learns the members in another order.
    const b = await gateway({}, [...members].reverse());
    const picks = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const as = { user: `u-session-k${i}`, password: '' };
      const [ra, rb] = await Promise.all([getVia(a.port, target.url, as), getVia(b.port, target.url, as)]);
      expect(rb.headers[MEMBER_HEADER]).toBe(ra.headers[MEMBER_HEADER]);
      picks.add(ra.headers[MEMBER_HEADER] as string);
    }
    // Sessions are spread, not all on one member.
    expect(picks.size).toBeGreaterThan(1);
  });
});

describe('gateway: auth', () => {
  const users = new ProxyUsers({ alice: 'pw-alice', bob: 'pw-bob' });

  it('answers 407 to missing or wrong credentials, on plain HTTP and CONNECT, and serves each user', async () => {
    const g = await gateway({ users });
    const none = await getVia(g.port, target.url);
    expect(none.status).toBe(407);
    expect(none.headers['proxy-authenticate']).toMatch(/^Basic realm=/);
    expect((await getVia(g.port, target.url, { user: 'alice', password: 'pw-bob' })).status).toBe(407);
    expect((await getVia(g.port, target.url, { user: 'carol', password: 'pw-alice' })).status).toBe(407);
    expect((await tunnelVia(g.port, tcp.target, { user: 'bob', password: 'nope' })).status).toBe(407);
    expect((await getVia(g.port, target.url, { user: 'alice', password: 'pw-alice' })).status).toBe(200);
    expect((await getVia(g.port, target.url, { user: 'bob-session-7', password: 'pw-bob' })).status).toBe(
      200,
    );
    const t = await tunnelVia(g.port, tcp.target, { user: 'bob', password: 'pw-bob' });
    expect(t.status).toBe(200);
    t.socket.destroy();
  });

  it('refuses to listen on a non-loopback address without users', async () => {
    await expect(startGateway({ pool: 'open', host: '0.0.0.0' })).rejects.toThrow(GatewayConfigError);
    await expect(startGateway({ pool: 'open', host: '0.0.0.0' })).rejects.toThrow(
      /refusing to listen on 0\.0\.0\.0 without proxy users/,
    );
    const g = await startGateway({ pool: 'authed', host: '0.0.0.0', users });
    gateways.push(g);
    expect(g.port).toBeGreaterThan(0);
  });

  it('never logs passwords', async () => {
    const lines: string[] = [];
    const sink = {
      info: (o: object, m?: string) => lines.push(JSON.stringify(o) + (m ?? '')),
      warn: (o: object, m?: string) => lines.push(JSON.stringify(o) + (m ?? '')),
      error: (o: object, m?: string) => lines.push(JSON.stringify(o) + (m ?? '')),
      debug: (o: object, m?: string) => lines.push(JSON.stringify(o) + (m ?? '')),
      child: () => sink,
    };
    const secret = 'SENTINEL-pw-4242';
    const g = await gateway({ users: new ProxyUsers({ alice: secret }), logger: sink }, [
      ...members,
      { name: 'dead', host: '127.0.0.1', port: 1 },
    ]);
    for (let i = 0; i < 5; i++)
      await getVia(g.port, target.url, { user: 'alice-session-z', password: secret });
    await getVia(g.port, target.url, { user: 'alice', password: `${secret}x` });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toContain(secret);
  });
});

describe('gateway: failures and bans', () => {
  it('a member killed mid-tunnel fails only its tunnel; new connections avoid it', async () => {
    const doomed = await startMember('m-doomed', '127.0.0.19');
    const list = [doomed, ...members];
    const g = await gateway({}, list);
    const tunnels = await Promise.all(list.map(() => tunnelVia(g.port, tcp.target)));
    const onDoomed = tunnels.find((t) => t.headers[MEMBER_HEADER] === 'm-doomed');
    const others = tunnels.filter((t) => t !== onDoomed);
    expect(onDoomed).toBeDefined();
    await doomed.kill();
    await expect(echoes(onDoomed!.socket, 'ping')).rejects.toThrow(/tunnel closed|EPIPE|ECONNRESET/);
    for (const t of others) await echoes(t.socket, 'still here');
    // The dead member is still listed (the pool has not noticed yet): its connect fails, the
    // gateway cools it down and retries the connection on another member.
    const fresh: string[] = [];
    for (let i = 0; i < 8; i++) {
      const t = await tunnelVia(g.port, tcp.target);
      expect(t.status).toBe(200);
      fresh.push(t.headers[MEMBER_HEADER] ?? '');
      t.socket.destroy();
    }
    expect(fresh).not.toContain('m-doomed');
    expect(g.members.cooledDown().map((c) => c.member)).toEqual(['m-doomed']);
    for (const t of others) t.socket.destroy();
  });

  it('cools down a member answering 429, shows it, and sends it nothing during the cooldown', async () => {
    const banned = members[1] as TestMember;
    target.banned.add(banned.localAddress);
    const g = await gateway({ cooldownMs: 60 * 60_000 });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await getVia(g.port, target.url)).status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
    expect(g.members.cooledDown()).toEqual([
      expect.objectContaining({ member: banned.name, reason: 'status-429' }),
    ]);
    const after: string[] = [];
    for (let i = 0; i < 6; i++) after.push(await egressVia(g.port, target.url));
    expect(after).not.toContain(banned.localAddress);
    const text = await g.metrics.registry.metrics();
    expect(text).toMatch(
      new RegExp(
        `egress_proxies_gateway_cooldowns_total\\{pool="test",member="${banned.name}",reason="status-429"\\} 1`,
      ),
    );
    expect(text).toMatch(
      new RegExp(`egress_proxies_gateway_member_cooled_down\\{pool="test",member="${banned.name}"\\} 1`),
    );
  });

  it('a ban answered while the member cools down moves the end, reports it, and counts one cooldown', async () => {
    let now = 1_000;
    const reported: string[] = [];
    const g = await gateway({
      cooldownMs: 60_000,
      now: () => now,
      onCooldown: (member, reason, until, origin, change) =>
        reported.push(`${member} ${reason} ${until} ${origin} ${change}`),
    });
    // Two requests of one session (so one member), both at the target before either is answered.
    const first = heldAnswer();
    const second = heldAnswer();
    target.answerNext.push(first.answer, second.answer);
    const o = { headers: { [SESSION_HEADER]: 'held' } };
    const requests = [getVia(g.port, target.url, o), getVia(g.port, target.url, o)];
    while (target.answerNext.length > 0) await new Promise((r) => setTimeout(r, 10));
    first.release(429);
    const early = await Promise.race(requests);
    const member = early.headers[MEMBER_HEADER] as string;
    expect(reported).toEqual([`${member} status-429 61000 local started`]);
    now += 5_000;
    second.release(429);
    const late = await Promise.all(requests);
    expect(late.map((r) => [r.status, r.headers[MEMBER_HEADER]])).toEqual([
      [429, member],
      [429, member],
    ]);
    expect(reported).toEqual([
      `${member} status-429 61000 local started`,
      `${member} status-429 66000 local extended`,
    ]);
    expect(g.members.cooledDown()).toEqual([{ member, until: 66_000, reason: 'status-429' }]);
    expect(await g.metrics.registry.metrics()).toMatch(
      new RegExp(
        `egress_proxies_gateway_cooldowns_total\\{pool="test",member="${member}",reason="status-429"\\} 1`,
      ),
    );
  });

  it('a cooled-down member comes back after the cooldown', async () => {
    let now = 1_000;
    const g = await gateway({ cooldownMs: 5_000, now: () => now });
    g.members.coolDown('m-a', 'status-403');
    expect(g.members.eligible().map((m) => m.name)).toEqual(['m-b', 'm-c']);
    now += 5_000;
    expect(g.members.eligible().map((m) => m.name)).toEqual(['m-a', 'm-b', 'm-c']);
  });

  it('answers 503 when no member is eligible', async () => {
    const g = await gateway({}, []);
    expect((await getVia(g.port, target.url)).status).toBe(503);
    expect((await tunnelVia(g.port, tcp.target)).status).toBe(503);
  });
});

describe('gateway: drain', () => {
  it('close() refuses new connections, lets open tunnels finish, then resolves', async () => {
    const g = await gateway();
    const t = await tunnelVia(g.port, tcp.target);
    let closed = false;
    const closing = g.close(60_000).then(() => {
      closed = true;
    });
    await expect(getVia(g.port, target.url)).rejects.toThrow(/ECONNREFUSED/);
    await echoes(t.socket, 'draining but alive');
    expect(closed).toBe(false);
    t.socket.end();
    await closing;
    expect(g.openConnections()).toBe(0);
  });

  it('close() cuts what is still open after the grace period', async () => {
    const g = await gateway();
    const t = await tunnelVia(g.port, tcp.target);
    const gone = new Promise<void>((r) => t.socket.once('close', () => r()));
    await g.close(50);
    await gone;
  });
});
