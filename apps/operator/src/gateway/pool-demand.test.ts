import { request } from 'node:http';
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
    onWake: () => {
      wakes.n++;
      woke();
    },
  });
  gateways.push(g);
  return { g, wakes };
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
