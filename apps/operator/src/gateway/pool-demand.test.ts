import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  echoes,
  getVia,
  startEchoTarget,
  startMember,
  startTcpEcho,
  type TestMember,
  tunnelVia,
} from '../../test/support/through-gateway.js';
import { type RunningGateway, startGateway } from './gateway-server.js';
import { SOCKS_REPLY } from './socks5.js';

let member: TestMember;
let target: Awaited<ReturnType<typeof startEchoTarget>>;
let tcp: Awaited<ReturnType<typeof startTcpEcho>>;
const gateways: RunningGateway[] = [];

beforeAll(async () => {
  member = await startMember('m-wake', '127.0.0.21');
  target = await startEchoTarget();
  tcp = await startTcpEcho();
});
afterAll(async () => {
  await member.kill();
  await target.close();
  await tcp.close();
});
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close(0)));
});

/** A gateway over a pool with no member yet; `wakes` counts the wake signals. */
async function sleepingPool(wakeTimeoutMs: number) {
  let woke = () => {};
  const wakes = { n: 0, first: new Promise<void>((r) => (woke = r)) };
  const g = await startGateway({
    pool: 'sleepy',
    wakeTimeoutMs,
    socks: { host: '127.0.0.1', port: 0 },
    onWake: () => {
      wakes.n++;
      woke();
    },
  });
  gateways.push(g);
  return { g, wakes };
}

/**
 * A SOCKS5 CONNECT to `target` (`ip:port`) with no auth, as a crawler's client sends it: resolves
 * with the server's reply code once it answers the request, and the socket (the tunnel on success).
 */
function socksConnect(port: number, target: string): Promise<{ reply: number; socket: Socket }> {
  const [ip = '', p = '0'] = target.split(':');
  const request = Buffer.from([5, 1, 0, 1, ...ip.split('.').map(Number), Number(p) >> 8, Number(p) & 0xff]);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let got = Buffer.alloc(0);
    const onData = (c: Buffer) => {
      got = Buffer.concat([got, c]);
      // The method choice (2 bytes), then the 10-byte reply to the request.
      if (got.length === 2) return void socket.write(request);
      if (got.length < 12) return;
      socket.off('data', onData);
      resolve({ reply: got[3] as number, socket });
    };
    socket.on('data', onData);
    socket.on('connect', () => socket.write(Buffer.from([5, 1, 0])));
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`SOCKS5 connection closed after ${got.length} bytes`)));
  });
}

/** Waits for a condition (the test's own timeout bounds it). */
const until = async (ok: () => boolean) => {
  while (!ok()) await new Promise((r) => setTimeout(r, 5));
};

describe('gateway: wake on demand', () => {
  it('holds a request while the pool has no member, tells the pool, and releases it to the first member', async () => {
    const { g, wakes } = await sleepingPool(60_000);
    const answer = getVia(g.port, `${target.url}woken`);
    await wakes.first;
    expect(g.load().waiting).toBe(1);
    g.members.setMembers([member]);
    const r = await answer;
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ ip: member.localAddress, url: '/woken' });
    expect(g.load().waiting).toBe(0);
  });

  it('holds a CONNECT the same way', async () => {
    const { g, wakes } = await sleepingPool(60_000);
    const opened = tunnelVia(g.port, tcp.target);
    await wakes.first;
    g.members.setMembers([member]);
    const t = await opened;
    expect(t.status).toBe(200);
    await echoes(t.socket, 'after the wake');
    t.socket.destroy();
  });

  it('holds a SOCKS5 CONNECT the same way: counted as waiting, it wakes the pool and is served by the first member', async () => {
    const { g, wakes } = await sleepingPool(60_000);
    const opened = socksConnect(g.socks?.port as number, tcp.target);
    await wakes.first;
    expect(g.load().waiting).toBe(1);
    g.members.setMembers([member]);
    const t = await opened;
    expect(t.reply).toBe(SOCKS_REPLY.succeeded);
    await echoes(t.socket, 'socks after the wake');
    expect(g.load()).toMatchObject({ waiting: 0, activeConnections: 1 });
    expect(g.load().requestsPerSecond).toBeGreaterThan(0);
    t.socket.destroy();
  });

  it('refuses a held SOCKS5 CONNECT with a general failure when no member comes within wakeTimeout', async () => {
    const { g, wakes } = await sleepingPool(300);
    const t = await socksConnect(g.socks?.port as number, tcp.target);
    expect(t.reply).toBe(SOCKS_REPLY.generalFailure);
    expect(wakes.n).toBe(1);
    expect(g.load().waiting).toBe(0);
    t.socket.destroy();
    const text = await g.metrics.registry.metrics();
    expect(text).toMatch(/egress_proxies_gateway_rejected_total\{[^}]*reason="wake-timeout"[^}]*\} 1/);
  });

  it('answers 503 with Retry-After when no member comes within wakeTimeout', async () => {
    const { g } = await sleepingPool(300);
    const r = await getVia(g.port, `${target.url}late`);
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('1');
    expect(r.body).toContain('no Ready member within the wake timeout (300 ms)');
    const t = await tunnelVia(g.port, tcp.target);
    expect(t.status).toBe(503);
    expect(t.headers['retry-after']).toBe('1');
    t.socket.destroy();
  });

  it('forgets a request whose client left while it was held, blaming no member', async () => {
    const { g, wakes } = await sleepingPool(60_000);
    const req = request({ host: '127.0.0.1', port: g.port, path: `${target.url}gone`, agent: false });
    req.on('error', () => {});
    req.end();
    await wakes.first;
    req.destroy();
    await until(() => g.load().waiting === 0);
    g.members.setMembers([member]);
    expect(g.members.cooledDown()).toEqual([]);
    const text = await g.metrics.registry.metrics();
    expect(text).not.toMatch(/egress_proxies_gateway_failures_total\{[^}]*\} [1-9]/);
  });

  it('without a wake timeout answers at once, as before autoscale', async () => {
    const { g, wakes } = await sleepingPool(0);
    const r = await getVia(g.port, target.url);
    expect(r.status).toBe(503);
    expect(r.body).toContain('no Ready member in the pool');
    expect(wakes.n).toBe(0);
  });

  it("is ready on its own port's /readyz at zero members only while it wakes on demand", async () => {
    // A load balancer or Service that probes the proxy port must keep sending traffic to a pool at
    // zero, or the request that would wake it never arrives.
    const readyz = async (port: number) => (await fetch(`http://127.0.0.1:${port}/readyz`)).status;
    const waking = await sleepingPool(60_000);
    expect(await readyz(waking.g.port)).toBe(200);
    expect(waking.wakes.n).toBe(0);
    const fixed = await sleepingPool(0);
    expect(await readyz(fixed.g.port)).toBe(503);
  });

  it('reports requests per second and open connections', async () => {
    const { g } = await sleepingPool(60_000);
    g.members.setMembers([member]);
    for (let i = 0; i < 5; i++) expect((await getVia(g.port, target.url)).status).toBe(200);
    const t = await tunnelVia(g.port, tcp.target);
    await echoes(t.socket, 'open');
    const load = g.load();
    expect(load.activeConnections).toBe(1);
    // Six arrivals over the rate window.
    expect(load.requestsPerSecond).toBeCloseTo(0.6, 5);
    t.socket.destroy();
  });
});
