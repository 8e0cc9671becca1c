// The gateway's SOCKS5 listener against real clients (curl), real members (proxy-chain) and real
// origins on loopback: the same users, sessions, attribution and caps as the HTTP side.
import { execFile } from 'node:child_process';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTlsEchoServer } from '../../test/support/forward-proxy.js';
import { startEchoTarget, startMember, type TestMember } from '../../test/support/through-gateway.js';
import { ProxyUsers } from './basic-auth.js';
import { GatewayConfigError, type RunningGateway, startGateway } from './gateway-server.js';
import type { GatewayMember } from './member-table.js';
import { SOCKS_REPLY } from './socks5.js';

const run = promisify(execFile);
let members: TestMember[] = [];
let target: Awaited<ReturnType<typeof startEchoTarget>>;
let tls: Awaited<ReturnType<typeof startTlsEchoServer>>;
const gateways: RunningGateway[] = [];
const users = new ProxyUsers({ crawler: 's3cret' });

beforeAll(async () => {
  members = await Promise.all(['m-a', 'm-b', 'm-c'].map((n, i) => startMember(n, `127.0.0.${41 + i}`)));
  target = await startEchoTarget();
  tls = await startTlsEchoServer();
});
afterAll(async () => {
  await Promise.all(members.map((m) => m.kill()));
  await target.close();
  await tls.stop();
});
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close(0)));
});

async function gateway(
  opts: Partial<Parameters<typeof startGateway>[0]> = {},
  list: GatewayMember[] = members,
): Promise<RunningGateway & { socks: NonNullable<RunningGateway['socks']> }> {
  const g = await startGateway({
    pool: 'test',
    cooldownMs: 60 * 60_000,
    users,
    socks: { host: '127.0.0.1', port: 0 },
    ...opts,
  });
  g.members.setMembers(list);
  gateways.push(g);
  if (!g.socks) throw new Error('the gateway has no SOCKS5 listener');
  return g as RunningGateway & { socks: NonNullable<RunningGateway['socks']> };
}

/** curl through the SOCKS5 listener (the name resolved by the proxy); the body, or the failure. */
async function curlVia(g: { socks: { port: number } }, url: string, user?: string) {
  const args = ['-sS', '-k', '--max-time', '10', '--socks5-hostname', `127.0.0.1:${g.socks.port}`];
  if (user) args.push('--proxy-user', user);
  return run('curl', [...args, url], { encoding: 'utf8' });
}
const egressOf = (body: string) => (JSON.parse(body) as { ip: string }).ip;

/** A raw SOCKS5 exchange: writes each message after the previous answer; resolves with all bytes read. */
function rawSocks(port: number, messages: Buffer[]): Promise<{ bytes: Buffer; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let got = Buffer.alloc(0);
    const queue = [...messages];
    socket.on('connect', () => socket.write(queue.shift() as Buffer));
    socket.on('data', (c: Buffer) => {
      got = Buffer.concat([got, c]);
      const next = queue.shift();
      if (next) socket.write(next);
      else resolve({ bytes: got, socket });
    });
    socket.on('error', reject);
    socket.on('close', () => resolve({ bytes: got, socket }));
  });
}
const auth = (user: string, password: string) =>
  Buffer.concat([
    Buffer.from([1, user.length]),
    Buffer.from(user),
    Buffer.from([password.length]),
    Buffer.from(password),
  ]);
const connectIPv4 = (host: string, port: number) =>
  Buffer.from([5, 1, 0, 1, ...host.split('.').map(Number), port >> 8, port & 0xff]);

describe('gateway: SOCKS5', () => {
  const egresses = () => new Set(members.map((m) => m.localAddress));

  it('curl --socks5-hostname with a user reaches an HTTP target through a member, and a session sticks', async () => {
    const g = await gateway();
    const first = egressOf((await curlVia(g, target.url, 'crawler-session-s1:s3cret')).stdout);
    expect(egresses()).toContain(first);
    for (let i = 0; i < 3; i++)
      expect(egressOf((await curlVia(g, target.url, 'crawler-session-s1:s3cret')).stdout)).toBe(first);
    // Without a session, connections rotate over the members.
    const seen = new Set<string>();
    for (let i = 0; i < 3; i++) seen.add(egressOf((await curlVia(g, target.url, 'crawler:s3cret')).stdout));
    expect(seen).toEqual(egresses());
  });

  it('carries HTTPS through the tunnel (TLS end to end, the name resolved by the member)', async () => {
    const g = await gateway();
    const { stdout } = await curlVia(g, tls.url, 'crawler:s3cret');
    expect(egresses()).toContain(egressOf(stdout));
  });

  it('sends IPv4, IPv6 and domain addresses on as the CONNECT target, the name unresolved', async () => {
    // A member that records what it is asked to CONNECT to and then echoes the tunnel.
    const asked: string[] = [];
    const member = createServer((s) => {
      s.on('error', () => {});
      s.once('data', (c: Buffer) => {
        asked.push(c.toString('latin1').split('\r\n')[0] as string);
        s.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        s.pipe(s);
      });
    });
    await new Promise<void>((r) => member.listen(0, '127.0.0.1', r));
    const g = await gateway({}, [
      { name: 'm-rec', host: '127.0.0.1', port: (member.address() as AddressInfo).port },
    ]);
    const name = 'crawl.example.invalid';
    const requests = [
      connectIPv4('10.1.2.3', 443),
      Buffer.from([5, 1, 0, 4, ...Buffer.from('20010db8000000000000000000000001', 'hex'), 0x01, 0xbb]),
      Buffer.concat([Buffer.from([5, 1, 0, 3, name.length]), Buffer.from(name), Buffer.from([0, 80])]),
    ];
    for (const req of requests) {
      const r = await rawSocks(g.socks.port, [
        Buffer.from([5, 1, 2]),
        auth('crawler', 's3cret'),
        req,
        Buffer.from('ping'),
      ]);
      expect(r.bytes.subarray(4, 6)).toEqual(Buffer.from([5, SOCKS_REPLY.succeeded]));
      expect(r.bytes.subarray(-4).toString()).toBe('ping');
      r.socket.destroy();
    }
    expect(asked).toEqual([
      'CONNECT 10.1.2.3:443 HTTP/1.1',
      'CONNECT [2001:db8:0:0:0:0:0:1]:443 HTTP/1.1',
      `CONNECT ${name}:80 HTTP/1.1`,
    ]);
    member.close();
  });

  it('refuses a wrong password (RFC 1929 failure) and a client that offers no username/password', async () => {
    const g = await gateway();
    await expect(curlVia(g, target.url, 'crawler:wrong')).rejects.toThrow(
      /User was rejected|authentication|SOCKS/i,
    );
    const wrong = await rawSocks(g.socks.port, [Buffer.from([5, 1, 2]), auth('crawler', 'nope')]);
    expect([...wrong.bytes]).toEqual([5, 2, 1, 1]);
    const none = await rawSocks(g.socks.port, [Buffer.from([5, 1, 0])]);
    expect([...none.bytes]).toEqual([5, 0xff]);
    expect(g.members.cooledDown()).toEqual([]);
  });

  it('without users on loopback needs no auth; off loopback it refuses to start without users', async () => {
    const g = await gateway({ users: undefined });
    expect(egresses()).toContain(egressOf((await curlVia(g, target.url)).stdout));
    await expect(startGateway({ pool: 'test', socks: { host: '0.0.0.0', port: 0 } })).rejects.toThrow(
      GatewayConfigError,
    );
  });

  it('a garbage handshake is cut and does not affect another client', async () => {
    const g = await gateway();
    const garbage = await rawSocks(g.socks.port, [Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n')]);
    expect(garbage.bytes.length).toBe(0);
    expect(egresses()).toContain(egressOf((await curlVia(g, target.url, 'crawler:s3cret')).stdout));
    expect(g.members.cooledDown()).toEqual([]);
  });

  it('cuts a handshake that stalls at the header timeout, and counts refusals under the HTTP labels', async () => {
    const g = await gateway({ headersTimeoutMs: 300 });
    // Half a greeting and then nothing: the gateway closes it (the test would time out otherwise).
    const stalled = await rawSocks(g.socks.port, [Buffer.from([5])]);
    expect(stalled.socket.destroyed || stalled.bytes.length === 0).toBe(true);
    await rawSocks(g.socks.port, [Buffer.from([5, 1, 0])]);
    await rawSocks(g.socks.port, [Buffer.from('garbage')]);
    const text = await g.metrics.registry.metrics();
    for (const reason of ['header-timeout', 'auth', 'bad-request'])
      expect(text).toContain(`egress_proxies_gateway_rejected_total{pool="test",reason="${reason}"} 1`);
  });

  it('a dead target answers "connection refused" or "host unreachable" and cools no member', async () => {
    const g = await gateway();
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const r = await rawSocks(g.socks.port, [
      Buffer.from([5, 1, 2]),
      auth('crawler', 's3cret'),
      connectIPv4('127.0.0.1', deadPort),
    ]);
    expect([...r.bytes.subarray(0, 4)]).toEqual([5, 2, 1, 0]);
    expect([SOCKS_REPLY.hostUnreachable, SOCKS_REPLY.connectionRefused]).toContain(r.bytes[5]);
    r.socket.destroy();
    expect(g.members.cooledDown()).toEqual([]);
    expect(g.members.eligible().length).toBe(members.length);
  });

  it('a client that leaves while its tunnel is being opened blames no one', async () => {
    // A member that accepts the CONNECT and holds it unanswered (a slow origin).
    let asked!: () => void;
    const held = new Promise<void>((r) => {
      asked = r;
    });
    const member = createServer((s) => {
      s.on('error', () => {});
      s.once('data', () => asked());
    });
    await new Promise<void>((r) => member.listen(0, '127.0.0.1', r));
    const g = await gateway({}, [
      { name: 'm-slow', host: '127.0.0.1', port: (member.address() as AddressInfo).port },
    ]);
    const client = connect({ host: '127.0.0.1', port: g.socks.port });
    client.on('error', () => {});
    client.write(
      Buffer.concat([Buffer.from([5, 1, 2]), auth('crawler', 's3cret'), connectIPv4('10.0.0.1', 443)]),
    );
    await held;
    client.destroy();
    const text = async () => g.metrics.registry.metrics();
    while (!(await text()).includes('reason="client-abort"')) await new Promise((r) => setTimeout(r, 20));
    expect(g.members.cooledDown()).toEqual([]);
    member.close();
  });

  it("a member's own failure cools it and the tunnel is retried on another before the client hears", async () => {
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const deadPort = (dead.address() as AddressInfo).port;
    await new Promise<void>((r) => dead.close(() => r()));
    const [only] = members;
    const g = await gateway({}, [{ name: 'm-dead', host: '127.0.0.1', port: deadPort }, only as TestMember]);
    // Round-robin gives the dead member one of the first two connections; both still succeed.
    for (let i = 0; i < 2; i++)
      expect(egressOf((await curlVia(g, target.url, 'crawler:s3cret')).stdout)).toBe(only?.localAddress);
    expect(g.members.cooledDown().map((c) => c.member)).toEqual(['m-dead']);
  });
});
