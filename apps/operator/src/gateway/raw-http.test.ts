// The raw plain-HTTP path's own edges, against real members (proxy-chain) and origins on loopback,
// plus hand-written members for what proxy-chain never sends (a close-delimited answer, a reset,
// a stale keep-alive connection). What it hands to the `http` path is compared with a gateway
// that has the raw path off: the same bytes in, the same answers out.
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, connect, createServer, type Server as NetServer, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  gatewayStarter,
  startMember,
  startTcpEcho,
  type TestMember,
  tunnelVia,
} from '../../test/support/through-gateway.js';
import { ProxyUsers } from './basic-auth.js';
import { MEMBER_HEADER, type RunningGateway, startGateway } from './gateway-server.js';
import type { GatewayMember } from './member-table.js';

let members: TestMember[] = [];
/** 16 MiB no two 64 KiB reads of which are alike: a reused read buffer would show. */
const BIG = Buffer.alloc(16 << 20);
for (let i = 0; i < BIG.length; i += 4) BIG.writeUInt32LE(i, i);
let origin: Server;
let originUrl: string;
/** Requests the origin saw: method, url, raw headers, body. */
const seen: { method: string; url: string; rawHeaders: string[]; body: string }[] = [];
/** Responses the origin holds open (the client-abort test). */
const held = new Set<IncomingMessage>();
const gateways: RunningGateway[] = [];
const servers: NetServer[] = [];
const clients: Socket[] = [];

beforeAll(async () => {
  members = await Promise.all(['m-a', 'm-b'].map((n, i) => startMember(n, `127.0.0.${51 + i}`)));
  origin = createHttpServer((req, res) => {
    let body = '';
    req.setEncoding('latin1');
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', rawHeaders: req.rawHeaders, body });
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/204') return void res.writeHead(204).end();
      if (path === '/304') return void res.writeHead(304, { etag: '"a"' }).end();
      if (path === '/chunked') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('one,');
        setTimeout(() => res.end('two,three'), 20);
        return;
      }
      if (path === '/hold') {
        held.add(req);
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('first part');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain', 'x-origin': 'yes' }).end(`${req.method} ${body}`);
    });
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await Promise.all(members.map((m) => m.kill()));
  origin.closeAllConnections();
  await new Promise((r) => origin.close(r));
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  held.clear();
  seen.length = 0;
  await Promise.all(gateways.splice(0).map((g) => g.close(0)));
  for (const s of servers.splice(0)) {
    s.close();
    for (const c of (s as NetServer & { sockets?: Set<Socket> }).sockets ?? []) c.destroy();
  }
});

const gateway = gatewayStarter(() => members, gateways);

/** A client connection that collects everything it is sent. */
function rawClient(port: number) {
  const s = connect(port, '127.0.0.1');
  clients.push(s);
  let got = '';
  s.on('data', (c) => (got += c.toString('latin1')));
  s.on('error', () => {});
  const closed = new Promise<void>((r) => s.once('close', () => r()));
  return {
    s,
    received: () => got,
    closed,
    /** Waits until what was received satisfies `done`. */
    until: async (done: (text: string) => boolean, what: string) => {
      const end = Date.now() + 10_000;
      while (!done(got)) {
        if (Date.now() > end || (s.destroyed && !done(got)))
          throw new Error(`waiting for ${what}; received ${JSON.stringify(got)}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
  };
}

/** Whether `text` holds `n` whole answers (the members relay the origin's bodies chunked). */
const whole = (n: number) => (text: string) => answers(text).length === n && text.endsWith('0\r\n\r\n');
const answers = (text: string) => text.split(/(?=HTTP\/1\.1 \d{3} )/).filter(Boolean);
const statuses = (text: string) => answers(text).map((a) => Number(a.slice(9, 12)));

/** A member that is no proxy-chain: `serve` gets each request head it reads. */
async function handMember(name: string, serve: (s: Socket, head: string) => void): Promise<GatewayMember> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    let buf = '';
    s.on('data', (c) => {
      buf += c.toString('latin1');
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buf.slice(0, end);
      buf = buf.slice(end + 4);
      serve(s, head);
    });
  });
  (server as NetServer & { sockets?: Set<Socket> }).sockets = sockets;
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { name, host: '127.0.0.1', port: (server.address() as AddressInfo).port };
}

async function until(check: () => boolean, what: string) {
  const end = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const get = (url: string, extra = '') => `GET ${url} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;

describe('gateway: the raw plain-HTTP path', () => {
  it('serves a plain request itself, keeping the header order and case and dropping proxy headers', async () => {
    const g = await gateway();
    const c = rawClient(g.port);
    c.s.write(
      `GET ${originUrl}/a HTTP/1.1\r\nHost: x\r\nX-B: 1\r\nProxy-Connection: keep-alive\r\nx-egress-session: s1\r\nx-a: 2\r\n\r\n`,
    );
    await c.until(whole(1), 'the answer');
    const text = c.received();
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toMatch(new RegExp(`\r\n${MEMBER_HEADER}: m-[ab]\r\n`));
    expect(text).toContain('\r\nx-origin: yes\r\n');
    const names = seen[0]?.rawHeaders.filter((_, i) => i % 2 === 0) ?? [];
    // (The member adds its own Connection header after the client's.)
    expect(names.slice(0, 3)).toEqual(['Host', 'X-B', 'x-a']);
    expect(names.map((n) => n.toLowerCase())).not.toContain('x-egress-session');
    expect(g.rawHttp).toEqual({ served: 1, handedOff: 0 });
    expect(g.stats.members.get(/m-[ab]/.exec(text)?.[0] as string)?.http).toBe(1);
  });

  it('answers pipelined requests on one connection in order', async () => {
    const g = await gateway();
    const c = rawClient(g.port);
    c.s.write(get(`${originUrl}/1`) + get(`${originUrl}/2`) + get(`${originUrl}/3`));
    await c.until(whole(3), 'three answers');
    expect(statuses(c.received())).toEqual([200, 200, 200]);
    expect(seen.map((r) => r.url)).toEqual(['/1', '/2', '/3']);
    expect(g.rawHttp?.served).toBe(3);
  });

  it('relays a chunked request body and a chunked answer, then serves the next request', async () => {
    const g = await gateway();
    const c = rawClient(g.port);
    c.s.write(
      `POST ${originUrl}/post HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n`,
    );
    await c.until(whole(1), 'the echo');
    c.s.write(get(`${originUrl}/chunked`));
    await c.until(whole(2), 'the chunked answer');
    const second = answers(c.received())[1] ?? '';
    expect(second).toMatch(/transfer-encoding: chunked/i);
    expect(second.replace(/^[\s\S]*?\r\n\r\n/, '').replace(/\r\n[0-9a-f]+\r\n/g, '')).toContain(
      'one,two,three',
    );
    expect(seen[0]?.body).toBe('hello world');
    expect(g.rawHttp?.served).toBe(2);
  });

  it('relays an answer that runs to the member closing as chunked, and the client connection stays', async () => {
    const m = await handMember('m-close', (s) => {
      s.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nuntil the ');
      setTimeout(() => s.end('end'), 20);
    });
    const g = await gateway({}, [m]);
    const c = rawClient(g.port);
    c.s.write(get('http://example.test/close'));
    await c.until((t) => t.endsWith('0\r\n\r\n'), 'the whole answer');
    c.s.write(get('http://example.test/again'));
    await c.until((t) => answers(t).length === 2 && t.endsWith('0\r\n\r\n'), 'the second answer');
    const first = answers(c.received())[0] ?? '';
    expect(first).toMatch(/\r\ntransfer-encoding: chunked\r\n/);
    expect(first).not.toMatch(/\r\nConnection: close\r\n/i);
    expect(first.replace(/^[\s\S]*?\r\n\r\n/, '')).toBe('a\r\nuntil the \r\n3\r\nend\r\n0\r\n\r\n');
    expect(g.members.cooledDown()).toEqual([]);
  });

  it('relays a 16 MiB answer to a client that reads in bursts, byte for byte', async () => {
    const m = await handMember('m-big', (s) => {
      s.write(`HTTP/1.1 200 OK\r\nContent-Length: ${BIG.length}\r\n\r\n`);
      s.write(BIG);
    });
    const g = await gateway({}, [m]);
    const s = connect(g.port, '127.0.0.1');
    clients.push(s);
    const parts: Buffer[] = [];
    let got = 0;
    const headEnd = `HTTP/1.1 200 OK\r\nContent-Length: ${BIG.length}\r\nx-egress-member: m-big\r\n\r\n`
      .length;
    await new Promise<void>((resolve, reject) => {
      s.on('error', reject);
      s.on('data', (c: Buffer) => {
        parts.push(c);
        got += c.length;
        // A slow reader: the gateway's writes queue, and the member's reads go on meanwhile.
        if (parts.length % 3 === 0) {
          s.pause();
          setTimeout(() => s.resume(), 1);
        }
        if (got >= headEnd + BIG.length) resolve();
      });
      s.write(get('http://example.test/big'));
    });
    const all = Buffer.concat(parts);
    expect(all.subarray(0, headEnd).toString('latin1')).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(all.subarray(headEnd).equals(BIG)).toBe(true);
  });

  it('reads no body after HEAD, 204 and 304, and the connection goes on', async () => {
    const g = await gateway();
    const c = rawClient(g.port);
    c.s.write(
      `HEAD ${originUrl}/h HTTP/1.1\r\nHost: x\r\n\r\n${get(`${originUrl}/204`)}${get(`${originUrl}/304`)}${get(`${originUrl}/last`)}`,
    );
    await c.until(whole(4), 'the last answer');
    expect(statuses(c.received())).toEqual([200, 204, 304, 200]);
    expect(g.rawHttp?.served).toBe(4);
  });

  it('a client that leaves mid-answer cools nobody down and drops the member connection', async () => {
    const g = await gateway();
    const c = rawClient(g.port);
    c.s.write(get(`${originUrl}/hold`));
    await c.until((t) => t.includes('first part'), 'the first part');
    const [req] = [...held];
    const gone = new Promise((r) => req?.socket.once('close', r));
    c.s.destroy();
    await gone; // the member's connection to the origin went with the client
    await until(() => g.members.active('m-a') + g.members.active('m-b') === 0, 'the release');
    expect(g.members.cooledDown()).toEqual([]);
    const failures = [...g.stats.members.values()].flatMap((s) => [...s.failures.entries()]);
    expect(failures).toEqual([['client-abort', 1]]);
  });

  it('a member that resets before answering is cooled down and the request goes to another member', async () => {
    const bad = await handMember('m-reset', (s) => s.resetAndDestroy());
    const g = await gateway({ selection: 'round-robin' }, [bad, ...members]);
    for (let i = 0; i < 3; i++) {
      const c = rawClient(g.port);
      c.s.write(get(`${originUrl}/r${i}`));
      await c.until(whole(1), 'an answer');
      expect(c.received()).not.toContain('m-reset');
    }
    expect(g.members.cooledDown().map((m) => [m.member, m.reason])).toEqual([['m-reset', 'member-reset']]);
  });

  it('retries once on a fresh connection when a reused keep-alive connection fails at once', async () => {
    const served = new WeakSet<Socket>();
    let accepted = 0;
    const m = await handMember('m-stale', (s) => {
      // The member closed this kept-alive connection as the next request came (its idle timeout).
      if (served.has(s)) return void s.resetAndDestroy();
      served.add(s);
      s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    });
    servers.at(-1)?.on('connection', () => accepted++);
    const g = await gateway({}, [m]);
    const c = rawClient(g.port);
    c.s.write(get('http://example.test/1'));
    await c.until((t) => t.endsWith('ok'), 'the first answer');
    c.s.write(get('http://example.test/2'));
    await c.until((t) => answers(t).length === 2 && t.endsWith('ok'), 'the second answer');
    expect(statuses(c.received())).toEqual([200, 200]);
    expect(g.members.cooledDown()).toEqual([]);
    expect(accepted).toBe(2);
  });

  it('a member that answers before the request body is through is not reused, and the client connection closes', async () => {
    let accepted = 0;
    const m = await handMember('m-early', (s) =>
      s.write('HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\n\r\n'),
    );
    servers.at(-1)?.on('connection', () => accepted++);
    const g = await gateway({}, [m]);
    const c = rawClient(g.port);
    c.s.write('POST http://example.test/up HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello');
    await c.closed;
    expect(statuses(c.received())).toEqual([413]);
    const next = rawClient(g.port);
    next.s.write(get('http://example.test/next'));
    await next.until((t) => t.startsWith('HTTP/1.1 413'), 'the second answer');
    expect(accepted).toBe(2);
  });

  it('closes a member connection left idle in the pool past its idle time', async () => {
    let closed = 0;
    const m = await handMember('m-idle', (s) => {
      s.once('close', () => closed++);
      s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    });
    const g = await gateway({}, [m]);
    const c = rawClient(g.port);
    c.s.write(get('http://example.test/once'));
    await c.until((t) => t.endsWith('ok'), 'the answer');
    // Under the members' own keep-alive timeout (Node's 5 s), so the gateway closes it first.
    await until(() => closed === 1, 'the idle member connection to close');
    expect(c.s.destroyed).toBe(false);
  }, 15_000);

  it('a member answering garbage is its failure: cooled down, the request goes to another member', async () => {
    const bad = await handMember('m-garbage', (s) => s.write('SSH-2.0-OpenSSH\r\n\r\n'));
    const g = await gateway({ selection: 'round-robin' }, [bad, members[0] as TestMember]);
    for (let i = 0; i < 2; i++) {
      const c = rawClient(g.port);
      c.s.write(get(`${originUrl}/g${i}`));
      await c.until(whole(1), 'an answer');
      expect(c.received()).toContain(`${MEMBER_HEADER}: m-a`);
    }
    expect(g.members.cooledDown().map((x) => [x.member, x.reason])).toEqual([
      ['m-garbage', 'member-garbage'],
    ]);
  });

  it('a malformed answer from the only member is a 502', async () => {
    const bad = await handMember('m-garbage', (s) =>
      s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok'),
    );
    const g = await gateway({ connectAttempts: 1 }, [bad]);
    const c = rawClient(g.port);
    c.s.write(get('http://example.test/g'));
    await c.until((t) => t.endsWith('failed\n'), 'the 502');
    expect(statuses(c.received())).toEqual([502]);
    expect(g.members.cooledDown().map((x) => x.reason)).toEqual(['member-garbage']);
  });

  it('the drain: an idle connection closes at once, one in flight gets its answer with connection: close', async () => {
    const m = await handMember('m-slow', (s) => {
      setTimeout(() => s.write('HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nslow'), 300);
    });
    // Closed by the test itself, not by afterEach.
    const g = await startGateway({ pool: 'test' });
    g.members.setMembers([m]);
    const idle = rawClient(g.port);
    idle.s.write(get('http://example.test/first'));
    await idle.until((t) => t.endsWith('slow'), 'the first answer');
    const busy = rawClient(g.port);
    busy.s.write(get('http://example.test/second'));
    await until(() => g.members.active('m-slow') === 1, 'the request in flight');
    let idleClosedFirst = false;
    void idle.closed.then(() => {
      idleClosedFirst = !busy.received().includes('slow');
    });
    const closing = g.close(5_000);
    await busy.closed;
    await closing;
    expect(idleClosedFirst).toBe(true);
    expect(busy.received()).toMatch(/\r\nconnection: close\r\n\r\nslow$/);
    expect(g.openConnections()).toBe(0);
    expect(g.rawHttp?.served).toBe(2);
  });

  it('cuts a slow head at the header timeout with 408, and closes a connection idle past the idle timeout', async () => {
    const g = await gateway({ headersTimeoutMs: 300, idleTimeoutMs: 300 });
    const slow = rawClient(g.port);
    slow.s.write(`GET ${originUrl}/slow HTTP/1.1\r\nHost: x\r\n`);
    const idle = rawClient(g.port);
    idle.s.write(get(`${originUrl}/idle`));
    await Promise.all([slow.closed, idle.closed]);
    expect(statuses(slow.received())).toEqual([408]);
    expect(statuses(idle.received())).toEqual([200]);
    expect(g.rawHttp).toEqual({ served: 1, handedOff: 0 });
  });
});

describe('gateway: what the raw path hands to the http path is answered as before', () => {
  /** The answers a gateway with and one without the raw path give to the same bytes. */
  async function bothWays(bytes: string, answersExpected: number, opts = {}) {
    const out: string[][] = [];
    const counters: unknown[] = [];
    for (const rawHttp of [true, false]) {
      const g = await gateway({ rawHttp, ...opts });
      const c = rawClient(g.port);
      c.s.write(bytes);
      await Promise.race([
        c.closed,
        c.until((t) => answers(t).length >= answersExpected && /\r\n\r\n[\s\S]*\n$/.test(t), 'the answers'),
      ]);
      await new Promise((r) => setTimeout(r, 50));
      out.push(
        answers(c.received()).map((a) => a.replace(/\r\nDate: [^\r]*/i, '').replace(/m-[ab]/g, 'm-?')),
      );
      counters.push(g.rawHttp);
    }
    expect(out[0]).toEqual(out[1]);
    return { answers: out[0] as string[], counters: counters[0] };
  }

  it('Expect: 100-continue', async () => {
    const r = await bothWays(
      `POST ${originUrl}/e HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi`,
      1,
    );
    expect(r.answers.map((a) => a.slice(0, 12)).at(-1)).toBe('HTTP/1.1 200');
    expect(r.counters).toEqual({ served: 0, handedOff: 1 });
  });

  it('HTTP/1.0', async () => {
    const r = await bothWays(`GET ${originUrl}/old HTTP/1.0\r\nHost: x\r\n\r\n`, 1);
    expect(statuses(r.answers.join(''))).toEqual([200]);
    expect(r.counters).toEqual({ served: 0, handedOff: 1 });
  });

  it('Content-Length beside Transfer-Encoding (request smuggling)', async () => {
    const r = await bothWays(
      `POST ${originUrl}/s HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      1,
    );
    expect(statuses(r.answers.join(''))).toEqual([400]);
    expect(r.counters).toEqual({ served: 0, handedOff: 1 });
  });

  it('a lower-case or unknown method (Node refuses it; it is not passed on to a member)', async () => {
    for (const method of ['get', 'BREW']) {
      const r = await bothWays(`${method} ${originUrl}/m HTTP/1.1\r\nHost: x\r\n\r\n`, 1);
      expect(statuses(r.answers.join(''))).toEqual([400]);
      expect(r.counters).toEqual({ served: 0, handedOff: 1 });
    }
  });

  it('a chunked request body that breaks its framing gets 400 and the connection closes, nobody cooled', async () => {
    const bodies = {
      'a bad chunk size': 'zz\r\nabc\r\n0\r\n\r\n',
      'chunk data longer than its size': '3\r\nabcXX\r\n0\r\n\r\n',
    };
    for (const [what, body] of Object.entries(bodies)) {
      for (const rawHttp of [true, false]) {
        const g = await gateway({ rawHttp });
        const c = rawClient(g.port);
        c.s.write(`POST ${originUrl}/c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${body}`);
        await c.closed;
        expect(statuses(c.received()), `${what}, raw path ${rawHttp ? 'on' : 'off'}`).toEqual([400]);
        expect(c.received()).toMatch(/\r\n\r\nmalformed HTTP request\n$/);
        expect(g.members.eligible().length).toBe(members.length);
        if (rawHttp) expect(g.rawHttp).toEqual({ served: 1, handedOff: 0 });
      }
      // Nothing of the broken body reached the origin as a request of its own.
      expect(seen.filter((r) => r.url.endsWith('/c'))).toEqual([]);
    }
  });

  it('an obs-folded header', async () => {
    const r = await bothWays(`GET ${originUrl}/f HTTP/1.1\r\nHost: x\r\nX-Long: a\r\n b\r\n\r\n`, 1);
    expect(r.counters).toEqual({ served: 0, handedOff: 1 });
  });

  it('garbage after a good request: the good one answered, the garbage gets the 400 of the http path', async () => {
    const g = await gateway();
    const c = rawClient(g.port);
    c.s.write(`${get(`${originUrl}/ok`)}NOT HTTP AT ALL\r\n\r\n`);
    await c.closed;
    // (The http path alone answers only the 400: its parser fails the connection under the
    // first request's answer.)
    expect(statuses(c.received())).toEqual([200, 400]);
    expect(c.received()).toMatch(/\r\n\r\nmalformed HTTP request\n$/);
    expect(g.rawHttp).toEqual({ served: 1, handedOff: 1 });
    // A first line that is no proxy request goes to the http path as soon as it is in, not at the
    // end of a head that may never come: answered 400 at once, not 408 at the header timeout.
    const early = rawClient(g.port);
    early.s.write('NOT HTTP AT ALL\r\n');
    await early.closed;
    expect(statuses(early.received())).toEqual([400]);
    expect(g.rawHttp).toEqual({ served: 1, handedOff: 2 });
  });

  it('a connection handed to the http path counts once against the per-address cap', async () => {
    const echo = await startTcpEcho();
    try {
      const g = await gateway({ maxConnectionsPerClient: 2 });
      // Two CONNECTs: each connection is read raw first, then handed to the http path.
      const open = [await tunnelVia(g.port, echo.target), await tunnelVia(g.port, echo.target)];
      expect(open.map((t) => t.status)).toEqual([200, 200]);
      const over = rawClient(g.port);
      await over.closed;
      expect(statuses(over.received())).toEqual([429]);
      open[0]?.socket.destroy();
      // (A tunnel counts its client and its member socket.)
      await until(() => g.openConnections() === 2, 'the tunnel to close');
      const next = rawClient(g.port);
      next.s.write(get(`${originUrl}/after`));
      await next.until(whole(1), 'an answer');
      expect(g.rawHttp).toEqual({ served: 1, handedOff: 2 });
      open[1]?.socket.destroy();
    } finally {
      await echo.close();
    }
  });

  it('bad auth, then good auth on the same connection', async () => {
    const users = new ProxyUsers({ alice: 'secret' });
    const basic = (p: string) =>
      `Proxy-Authorization: Basic ${Buffer.from(`alice:${p}`).toString('base64')}\r\n`;
    const r = await bothWays(
      get(`${originUrl}/bad`, basic('wrong')) + get(`${originUrl}/good`, basic('secret')),
      2,
      { users },
    );
    expect(statuses(r.answers.join(''))).toEqual([407, 200]);
    expect(r.counters).toEqual({ served: 0, handedOff: 1 });
  });
});
