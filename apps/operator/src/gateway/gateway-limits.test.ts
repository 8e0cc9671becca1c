// The gateway's limits, against real members and origins on loopback: slow, oversized and greedy
// clients get clear answers and never stop other clients from being served.
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  echoes,
  egressVia,
  startEchoTarget,
  startMember,
  startTcpEcho,
  type TestMember,
  tunnelVia,
} from '../../test/support/through-gateway.js';
import { type RunningGateway, startGateway } from './gateway-server.js';
import { resolveLimits } from './limits.js';

let members: TestMember[] = [];
let target: Awaited<ReturnType<typeof startEchoTarget>>;
let tcp: Awaited<ReturnType<typeof startTcpEcho>>;
const gateways: RunningGateway[] = [];
const clients: Socket[] = [];

beforeAll(async () => {
  members = await Promise.all(['m-a', 'm-b'].map((n, i) => startMember(n, `127.0.0.${41 + i}`)));
  target = await startEchoTarget();
  tcp = await startTcpEcho();
});
afterAll(async () => {
  await Promise.all(members.map((m) => m.kill()));
  await target.close();
  await tcp.close();
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  await Promise.all(gateways.splice(0).map((g) => g.close(0)));
});

async function gateway(opts: Partial<Parameters<typeof startGateway>[0]> = {}) {
  const g = await startGateway({ pool: 'test', ...opts });
  g.members.setMembers(members);
  gateways.push(g);
  return g;
}

/** A raw client connection (optionally from another loopback address); collects what it is sent. */
function rawClient(port: number, localAddress?: string) {
  const s = connect({ host: '127.0.0.1', port, ...(localAddress ? { localAddress } : {}) });
  clients.push(s);
  let got = '';
  s.on('data', (c) => (got += c.toString('latin1')));
  s.on('error', () => {});
  const closed = new Promise<void>((r) => s.once('close', () => r()));
  const opened = new Promise<void>((r) => s.once('connect', () => r()));
  return { s, received: () => got, closed, opened };
}

const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);

describe('gateway: limits', () => {
  it('closes slowloris connections at the header timeout while normal clients are served', async () => {
    const g = await gateway({ headersTimeoutMs: 600 });
    const slow = Array.from({ length: 20 }, () => rawClient(g.port));
    await Promise.all(slow.map((c) => c.opened));
    // Each sends a head a few bytes at a time and never finishes it.
    const drip = setInterval(() => {
      for (const c of slow) if (!c.s.destroyed) c.s.write('X-Slow: 1\r\n');
    }, 100);
    for (const c of slow) c.s.write(`GET ${target.url} HTTP/1.1\r\nHost: x\r\n`);
    try {
      for (let i = 0; i < 5; i++) expect(await egressVia(g.port, target.url)).toMatch(/^127\.0\.0\.4[12]$/);
      await Promise.all(slow.map((c) => c.closed));
    } finally {
      clearInterval(drip);
    }
    for (const c of slow) expect(statusOf(c.received())).toBe(408);
    expect(await egressVia(g.port, target.url)).toMatch(/^127\.0\.0\.4[12]$/);
  }, 30_000);

  it('answers 414 to a request line over the limit and 431 to a head over the limit', async () => {
    const g = await gateway({ maxRequestLineBytes: 1024, maxHeaderBytes: 4096 });
    const long = rawClient(g.port);
    long.s.write(`GET ${target.url}${'a'.repeat(2000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    await long.closed;
    expect(statusOf(long.received())).toBe(414);
    const huge = rawClient(g.port);
    huge.s.write(`GET ${target.url} HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(8000)}\r\n\r\n`);
    await huge.closed;
    expect(statusOf(huge.received())).toBe(431);
    const longConnect = rawClient(g.port);
    longConnect.s.write(`CONNECT ${'c'.repeat(2000)}.example:443 HTTP/1.1\r\n\r\n`);
    await longConnect.closed;
    expect(statusOf(longConnect.received())).toBe(414);
    expect(await egressVia(g.port, target.url)).toMatch(/^127\.0\.0\.4[12]$/);
  });

  it('refuses connections over the per-address cap with 429; other addresses are served', async () => {
    const g = await gateway({ maxConnectionsPerClient: 3 });
    const held = Array.from({ length: 3 }, () => rawClient(g.port, '127.0.0.51'));
    await Promise.all(held.map((c) => c.opened));
    await new Promise((r) => setTimeout(r, 50));
    const extra = rawClient(g.port, '127.0.0.51');
    await extra.closed;
    expect(statusOf(extra.received())).toBe(429);
    expect(await egressVia(g.port, target.url)).toMatch(/^127\.0\.0\.4[12]$/);
    for (const c of held) c.s.destroy();
    await Promise.all(held.map((c) => c.closed));
    // Once the address's connections are gone it is served again.
    await new Promise((r) => setTimeout(r, 50));
    const again = rawClient(g.port, '127.0.0.51');
    again.s.write(`GET ${target.url} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    await again.closed;
    expect(statusOf(again.received())).toBe(200);
  });

  it('answers 503 to a tunnel over the open-tunnel cap, and serves again once one closes', async () => {
    const g = await gateway({ maxTunnels: 2 });
    const open = [await tunnelVia(g.port, tcp.target), await tunnelVia(g.port, tcp.target)];
    expect(open.map((t) => t.status)).toEqual([200, 200]);
    const over = await tunnelVia(g.port, tcp.target);
    expect(over.status).toBe(503);
    over.socket.destroy();
    for (const t of open) await echoes(t.socket, 'still open');
    const gone = new Promise((r) => open[0]?.socket.once('close', r));
    open[0]?.socket.destroy();
    await gone;
    await new Promise((r) => setTimeout(r, 50));
    const next = await tunnelVia(g.port, tcp.target);
    expect(next.status).toBe(200);
    next.socket.destroy();
    open[1]?.socket.destroy();
  });

  it('closes a tunnel idle past the tunnel idle timeout', async () => {
    const g = await gateway({ tunnelIdleTimeoutMs: 300 });
    const t = await tunnelVia(g.port, tcp.target);
    await echoes(t.socket, 'alive');
    await new Promise<void>((r) => t.socket.once('close', () => r()));
  });

  it('at the connection limit refuses new connections and keeps serving the open ones', async () => {
    const g = await gateway({ maxConnections: 2 });
    const a = await tunnelVia(g.port, tcp.target);
    const b = await tunnelVia(g.port, tcp.target);
    const refused = rawClient(g.port);
    refused.s.write(`GET ${target.url} HTTP/1.1\r\nHost: x\r\n\r\n`);
    await refused.closed;
    expect(refused.received()).toBe('');
    await echoes(a.socket, 'served');
    await echoes(b.socket, 'served too');
    a.socket.destroy();
    b.socket.destroy();
  });

  it('derives the connection limits from the file-descriptor limit and names a bad limit', () => {
    expect(resolveLimits({}, 1024).maxConnections).toBe(480);
    expect(resolveLimits({}, 1024).maxTunnels).toBe(480);
    expect(() => resolveLimits({ headersTimeoutMs: 0 })).toThrow(
      /headersTimeoutMs: 0 is not a positive whole number/,
    );
  });
});
