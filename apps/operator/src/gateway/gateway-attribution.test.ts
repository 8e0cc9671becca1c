// Failures attributed to whoever failed, against real members (proxy-chain, as provider-local
// runs them) and real origins on loopback: only a member's own failure cools it down.
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  gatewayStarter,
  getVia,
  startEchoTarget,
  startMember,
  type TestMember,
  tunnelVia,
} from '../../test/support/through-gateway.js';
import { validateProxyPoolSpec } from '../api/proxy-pool.js';
import { ProxyUsers } from './basic-auth.js';
import {
  BAN_REPORT_HEADER,
  MEMBER_HEADER,
  MOVED_HEADER,
  type RunningGateway,
  startGateway,
} from './gateway-server.js';
import { type GatewaySpec, specSettings } from './spec-settings.js';

let members: TestMember[] = [];
let target: Awaited<ReturnType<typeof startEchoTarget>>;
const gateways: RunningGateway[] = [];
const servers: Server[] = [];

beforeAll(async () => {
  members = await Promise.all(['m-a', 'm-b', 'm-c'].map((n, i) => startMember(n, `127.0.0.${31 + i}`)));
  target = await startEchoTarget();
});
afterAll(async () => {
  await Promise.all(members.map((m) => m.kill()));
  await target.close();
});
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close(0)));
  for (const s of servers.splice(0)) s.close();
});

const gateway = gatewayStarter(() => members, gateways);

/** A TCP server on loopback running `onSocket` for each connection (a misbehaving member or origin). */
async function tcpServer(
  onSocket: (s: Socket) => void,
): Promise<{ port: number; sockets: Set<Socket>; accepted: () => number }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((s) => {
    accepted++;
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
    onSocket(s);
  });
  servers.push(server);
  server.on('close', () => {
    for (const s of sockets) s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, sockets, accepted: () => accepted };
}

/** The failures the gateway counted, as `member reason` → count. */
async function failures(g: RunningGateway): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const text = await g.metrics.registry.metrics();
  for (const m of text.matchAll(
    /egress_proxies_gateway_failures_total\{pool="test",member="([^"]+)",reason="([^"]+)"\} (\d+)/g,
  ))
    out[`${m[1]} ${m[2]}`] = Number(m[3]);
  return out;
}

const sum = (r: Record<string, number>, reason: string) =>
  Object.entries(r)
    .filter(([k]) => k.endsWith(` ${reason}`))
    .reduce((n, [, v]) => n + v, 0);

/** Sends a plain proxy GET and leaves once `ready` resolves (the request reached the origin). */
function abortedGet(port: number, url: string, ready: Promise<unknown>): Promise<void> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => {
      s.write(`GET ${url} HTTP/1.1\r\nHost: x\r\n\r\n`);
      void ready.then(() => s.destroy());
    });
    s.on('error', () => {});
    s.on('close', () => resolve());
  });
}

async function until(check: () => boolean, what: string, ms = 20_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('gateway: failures attributed to whoever failed', () => {
  it('a client that leaves before the answer cools nobody down', async () => {
    const origin = await tcpServer(() => {});
    const g = await gateway();
    await abortedGet(
      g.port,
      `http://127.0.0.1:${origin.port}/slow`,
      until(() => origin.sockets.size === 1, 'the origin'),
    );
    await until(
      () => g.members.active('m-a') + g.members.active('m-b') + g.members.active('m-c') === 0,
      'release',
    );
    expect(g.members.cooledDown()).toEqual([]);
    expect(sum(await failures(g), 'client-abort')).toBe(1);
  });

  it('1,000 aborted connections leave every member eligible', async () => {
    const origin = await tcpServer(() => {});
    const g = await gateway();
    const url = `http://127.0.0.1:${origin.port}/held`;
    for (let batch = 1; batch <= 10; batch++) {
      // Each batch reaches the origin through the members, then every client leaves at once.
      const reached = until(() => origin.accepted() >= 100 * batch, 'the batch at the origin');
      await Promise.all(Array.from({ length: 100 }, () => abortedGet(g.port, url, reached)));
    }
    await until(() => g.openConnections() === 0, 'the gateway to see every client leave');
    expect(g.members.cooledDown()).toEqual([]);
    expect(g.members.eligible()).toHaveLength(3);
    expect(sum(await failures(g), 'client-abort')).toBe(1000);
  }, 120_000);

  it('a CONNECT whose target is down is answered 502, tried on one member only, and cools nobody', async () => {
    const g = await gateway();
    const t = await tunnelVia(g.port, '127.0.0.1:1');
    expect(t.status).toBe(502);
    t.socket.destroy();
    const f = await failures(g);
    expect(f).toEqual({ [Object.keys(f)[0] as string]: 1 });
    expect(sum(f, 'target-unreachable')).toBe(1);
    expect(g.members.cooledDown()).toEqual([]);
  });

  it("a plain request to a dead target passes on the member's own 5xx and cools nobody", async () => {
    const g = await gateway();
    const r = await getVia(g.port, 'http://127.0.0.1:1/');
    expect(r.status).toBeGreaterThanOrEqual(500);
    expect(r.headers[MEMBER_HEADER]).toBeDefined();
    expect(g.members.cooledDown()).toEqual([]);
  });

  it("a member refusing the CONNECT target (Squid's 503) is passed on, not retried, and not cooled down", async () => {
    const refusing = await tcpServer((s) =>
      s.once('data', () => s.end('HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n')),
    );
    const g = await gateway({}, [{ name: 'm-squid', host: '127.0.0.1', port: refusing.port }, ...members]);
    const t = await tunnelVia(g.port, '127.0.0.1:1', { user: 'u-session-s1' });
    t.socket.destroy();
    // Whichever member the session landed on answered; a 503 from m-squid comes back as it is.
    const f = await failures(g);
    if (f['m-squid target-refused']) expect(t.status).toBe(503);
    expect(sum(f, 'target-refused') + sum(f, 'target-unreachable')).toBe(1);
    expect(g.members.cooledDown()).toEqual([]);
  });

  it('a TLS failure inside an established tunnel cools nobody down', async () => {
    // An origin that reads the ClientHello and hangs up with an alert, as a TLS server refusing it would.
    const origin = await tcpServer((s) =>
      s.once('data', () => s.end(Buffer.from([0x15, 0x03, 0x03, 0, 2, 2, 40]))),
    );
    const g = await gateway();
    const t = await tunnelVia(g.port, `127.0.0.1:${origin.port}`);
    expect(t.status).toBe(200);
    const closed = new Promise<void>((r) => t.socket.once('close', () => r()));
    t.socket.on('error', () => {});
    t.socket.write(Buffer.from([0x16, 0x03, 0x01, 0, 1, 1]));
    await closed;
    expect(g.members.cooledDown()).toEqual([]);
  });

  it('an origin slower than the answer timeout gets 504 and cools nobody down', async () => {
    const origin = await tcpServer(() => {});
    const g = await gateway({ answerTimeoutMs: 300 });
    const r = await getVia(g.port, `http://127.0.0.1:${origin.port}/`);
    expect(r.status).toBe(504);
    expect(g.members.cooledDown()).toEqual([]);
    expect(sum(await failures(g), 'target-timeout')).toBe(1);
  });

  it('a member that resets before answering is cooled down and the request goes to another member', async () => {
    const resetting = await tcpServer((s) => s.once('data', () => s.resetAndDestroy()));
    const list = [{ name: 'm-reset', host: '127.0.0.1', port: resetting.port }];
    const g = await gateway({}, [...list, ...members]);
    for (let i = 0; i < 4; i++) expect((await getVia(g.port, target.url)).status).toBe(200);
    const t = await tunnelVia(g.port, '127.0.0.1:1', { user: 'u-session-x' });
    t.socket.destroy();
    expect(g.members.cooledDown()).toEqual([
      expect.objectContaining({ member: 'm-reset', reason: 'member-reset' }),
    ]);
  });

  it('a member that closes before answering a plain request is cooled down', async () => {
    const closing = await tcpServer((s) => s.once('data', () => s.end()));
    const g = await gateway({}, [{ name: 'm-closing', host: '127.0.0.1', port: closing.port }, ...members]);
    for (let i = 0; i < 4; i++) expect((await getVia(g.port, target.url)).status).toBe(200);
    expect(g.members.cooledDown()).toEqual([
      expect.objectContaining({ member: 'm-closing', reason: 'member-closed' }),
    ]);
  });

  it('a member that cannot be connected to is cooled down; the connection goes elsewhere', async () => {
    const g = await gateway({}, [{ name: 'm-gone', host: '127.0.0.1', port: 1 }, ...members]);
    for (let i = 0; i < 4; i++) {
      const t = await tunnelVia(g.port, `127.0.0.1:${(await tcpServer(() => {})).port}`);
      expect(t.status).toBe(200);
      t.socket.destroy();
    }
    expect(g.members.cooledDown()).toEqual([
      expect.objectContaining({ member: 'm-gone', reason: 'connect-failed' }),
    ]);
  });

  it('a ban report from an authenticated client cools the member as a 429 would and moves the session', async () => {
    const g = await gateway({ users: new ProxyUsers(new Map([['alice', 'pw']])) });
    const first = await tunnelVia(g.port, `127.0.0.1:${(await tcpServer(() => {})).port}`, {
      user: 'alice-session-7',
      password: 'pw',
    });
    first.socket.destroy();
    const banned = first.headers[MEMBER_HEADER] as string;
    // Without valid credentials the report is refused and cools nothing.
    const stranger = await tunnelVia(g.port, '127.0.0.1:1', {
      user: 'alice-session-7',
      password: 'nope',
      headers: { [BAN_REPORT_HEADER]: banned },
    });
    stranger.socket.destroy();
    expect(stranger.status).toBe(407);
    expect(g.members.cooledDown()).toEqual([]);
    // An unknown member is named back.
    const wrong = await getVia(g.port, target.url, {
      user: 'alice',
      password: 'pw',
      headers: { [BAN_REPORT_HEADER]: 'm-nobody' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toContain('"m-nobody" is not a member of this pool');
    const next = await tunnelVia(g.port, `127.0.0.1:${(await tcpServer(() => {})).port}`, {
      user: 'alice-session-7',
      password: 'pw',
      headers: { [BAN_REPORT_HEADER]: banned },
    });
    next.socket.destroy();
    expect(next.status).toBe(200);
    expect(next.headers[MEMBER_HEADER]).not.toBe(banned);
    expect(next.headers[MOVED_HEADER]).toBe(banned);
    expect(g.members.cooledDown()).toEqual([
      expect.objectContaining({ member: banned, reason: 'reported-ban' }),
    ]);
    // The report works on plain requests too.
    const plain = await getVia(g.port, target.url, {
      user: 'alice-session-7',
      password: 'pw',
      headers: { [BAN_REPORT_HEADER]: next.headers[MEMBER_HEADER] as string },
    });
    expect(plain.status).toBe(200);
    expect(
      g.members
        .cooledDown()
        .map((c) => c.member)
        .sort(),
    ).toEqual([banned, next.headers[MEMBER_HEADER] as string].sort());
  });
});

describe('gateway: rotate', () => {
  /** Sends `n` plain GETs on one keep-alive connection; the egress address of each. */
  async function onOneConnection(port: number, n: number): Promise<string[]> {
    const { Agent, request } = await import('node:http');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const seen: string[] = [];
    for (let i = 0; i < n; i++)
      seen.push(
        await new Promise<string>((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port, path: target.url, agent });
          req.on('response', (res) => {
            let body = '';
            res.on('data', (c) => (body += c));
            res.on('end', () => resolve((JSON.parse(body) as { ip: string }).ip));
          });
          req.on('error', reject);
          req.end();
        }),
      );
    agent.destroy();
    return seen;
  }

  it('per-request (the default) spreads one keep-alive connection over the members', async () => {
    const g = await gateway();
    expect(new Set(await onOneConnection(g.port, 6)).size).toBe(3);
  });

  it('per-connection keeps one keep-alive connection on one member', async () => {
    const g = await gateway({ rotate: 'per-connection' });
    expect(new Set(await onOneConnection(g.port, 6)).size).toBe(1);
  });

  it("under a pool's spec.gateway.rotate: per-connection keeps the connection on one member", async () => {
    const spec = validateProxyPoolSpec({
      replicas: 3,
      template: { mode: 'Managed', provider: 'local' },
      gateway: { rotate: 'per-connection' },
    });
    const g = await gateway(specSettings(spec.gateway));
    expect(new Set(await onOneConnection(g.port, 6)).size).toBe(1);
    // The spec changing while the gateway runs spreads the same connection again.
    g.configure(specSettings({ ...spec.gateway, rotate: 'per-request' } as GatewaySpec));
    expect(new Set(await onOneConnection(g.port, 6)).size).toBe(3);
  });

  it('refuses a bad spec.gateway.rotate, naming the value and the allowed ones', () => {
    expect(() =>
      validateProxyPoolSpec({
        replicas: 1,
        template: { mode: 'Managed', provider: 'local' },
        gateway: { rotate: 'sometimes' },
      }),
    ).toThrow('spec.gateway.rotate: must be one of per-request, per-connection, got "sometimes"');
  });

  it('names a bad rotate value', async () => {
    await expect(startGateway({ pool: 'test', rotate: 'sometimes' as 'per-request' })).rejects.toThrow(
      /rotate "sometimes": expected one of per-request, per-connection/,
    );
  });
});
