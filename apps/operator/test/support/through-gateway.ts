// Real local proxies and targets for the gateway's tests: proxy-chain servers as members (each
// leaving from its own loopback address, like provider-local's), an echo target and a TCP echo.
import { createServer as createHttpServer, request } from 'node:http';
import { type AddressInfo, connect, createServer as createTcpServer, type Socket } from 'node:net';
import { Server } from 'proxy-chain';
import { type RunningGateway, startGateway } from '../../src/gateway/gateway-server.js';
import type { GatewayMember } from '../../src/gateway/member-table.js';

export interface TestMember extends GatewayMember {
  localAddress: string;
  kill(): Promise<void>;
}

export async function startMember(name: string, localAddress: string): Promise<TestMember> {
  const server = new Server({
    host: '127.0.0.1',
    port: 0,
    verbose: false,
    prepareRequestFunction: () => ({ localAddress }),
  });
  await server.listen();
  return { name, host: '127.0.0.1', port: server.port, localAddress, kill: () => server.close(true) };
}

/**
 * Answers `{"ip": <caller>}`, or 429 to callers in `banned`; a status pushed on `answerNext` is the
 * answer to the next request, whoever sends it (a promise: once it settles, so answers can be held).
 */
export async function startEchoTarget(banned = new Set<string>()) {
  const answerNext: (number | Promise<number>)[] = [];
  const server = createHttpServer((req, res) => {
    const ip = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    const next = answerNext.shift();
    if (next !== undefined)
      return void Promise.resolve(next).then((status) => res.writeHead(status).end(`answered ${status}\n`));
    if (banned.has(ip)) return void res.writeHead(429).end('slow down\n');
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(`${JSON.stringify({ ip, url: req.url })}\n`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    banned,
    answerNext,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** An answer for the echo target's `answerNext` that is held until `release(status)`. */
export function heldAnswer(): { answer: Promise<number>; release: (status: number) => void } {
  let release: (status: number) => void = () => {};
  const answer = new Promise<number>((r) => {
    release = r;
  });
  return { answer, release };
}

/** A TCP server echoing what it reads, the far end of CONNECT tunnels. */
export async function startTcpEcho() {
  const sockets = new Set<Socket>();
  const server = createTcpServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    s.pipe(s);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    target: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

export interface ViaOptions {
  user?: string;
  password?: string;
  headers?: Record<string, string>;
}

const authHeader = (o: ViaOptions): Record<string, string> =>
  o.user !== undefined
    ? { 'proxy-authorization': `Basic ${Buffer.from(`${o.user}:${o.password ?? ''}`).toString('base64')}` }
    : {};

/** A plain-HTTP GET of `url` through the proxy at `proxyPort`. */
export function getVia(
  proxyPort: number,
  url: string,
  o: ViaOptions = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port: proxyPort,
      path: url,
      headers: { ...authHeader(o), ...o.headers, connection: 'close' },
      agent: false,
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The caller address the echo target reported, through the proxy. */
export async function egressVia(proxyPort: number, url: string, o: ViaOptions = {}): Promise<string> {
  const r = await getVia(proxyPort, url, o);
  if (r.status !== 200) throw new Error(`GET ${url} via ${proxyPort}: ${r.status} ${r.body}`);
  return (JSON.parse(r.body) as { ip: string }).ip;
}

/** Opens a CONNECT tunnel; resolves with the status, the head's headers and the socket. */
export function tunnelVia(
  proxyPort: number,
  target: string,
  o: ViaOptions = {},
): Promise<{ status: number; headers: Record<string, string>; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: proxyPort });
    const extra = Object.entries({ ...authHeader(o), ...o.headers })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${extra}\r\n`);
    let head = '';
    const onData = (c: Buffer) => {
      head += c.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      const [line = '', ...rest] = head.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const h of rest) {
        const i = h.indexOf(':');
        headers[h.slice(0, i).toLowerCase()] = h.slice(i + 1).trim();
      }
      resolve({ status: Number(line.split(' ')[1]), headers, socket });
    };
    socket.on('data', onData);
    socket.on('error', reject);
  });
}

/** Writes `text` into an echo tunnel and waits for it to come back (rejects if the tunnel dies). */
export function echoes(socket: Socket, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let got = '';
    const onData = (c: Buffer) => {
      got += c.toString();
      if (got.length >= text.length) {
        cleanup();
        got === text ? resolve() : reject(new Error(`echo mismatch: ${got}`));
      }
    };
    const onClose = () => {
      cleanup();
      reject(new Error('tunnel closed'));
    };
    const cleanup = () => {
      socket.off('data', onData);
      socket.off('close', onClose);
    };
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.write(text);
  });
}

/**
 * A test file's gateway starter: a gateway over `members()` (or the list given) with an hour's
 * cooldown, pushed on `started` for the file's afterEach to close.
 */
export function gatewayStarter(members: () => GatewayMember[], started: RunningGateway[]) {
  return async (
    opts: Partial<Parameters<typeof startGateway>[0]> = {},
    list: GatewayMember[] = members(),
  ): Promise<RunningGateway> => {
    const g = await startGateway({ pool: 'test', cooldownMs: 60 * 60_000, ...opts });
    g.members.setMembers(list);
    started.push(g);
    return g;
  };
}
