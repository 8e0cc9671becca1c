import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * A small forward proxy for tests: absolute-form requests are forwarded, CONNECT is tunnelled.
 * Only loopback targets are allowed, so a test can never send traffic elsewhere.
 */
export async function startForwardProxy(): Promise<{
  port: number;
  requests: string[];
  stop(): Promise<void>;
}> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute-form URL required');
      return;
    }
    if (!LOOPBACK.has(url.hostname)) {
      res.writeHead(403).end('loopback only');
      return;
    }
    const up = httpRequest(
      {
        host: url.hostname,
        port: url.port || 80,
        method: req.method,
        path: url.pathname + url.search,
        headers: req.headers,
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.writeHead(502).end('upstream failed'));
    req.pipe(up);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req, client: Socket, head) => {
    requests.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    if (!host || !LOOPBACK.has(host)) {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const up = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    up.on('error', () => client.destroy());
    client.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    stop: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** GET `target` through the HTTP forward proxy at `proxy` (a URL): the status and body it answered. */
export function getThroughProxy(proxy: string, target: string): Promise<{ status: number; body: string }> {
  const p = new URL(proxy);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: p.hostname, port: Number(p.port), path: target, headers: { host: new URL(target).host } },
      (res) => {
        let body = '';
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.setTimeout(5000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** An HTTP server answering every GET with the caller's address. */
export async function startEchoServer(): Promise<{
  port: number;
  url: string;
  hits: number;
  stop(): Promise<void>;
}> {
  const state = { hits: 0 };
  const server = createServer((req, res) => {
    state.hits += 1;
    res
      .writeHead(200, { 'content-type': 'text/plain' })
      .end(req.socket.remoteAddress?.replace(/^::ffff:/, ''));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/ip`,
    get hits() {
      return state.hits;
    },
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** An HTTPS echo server with a fresh self-signed certificate for 127.0.0.1 (made with openssl). */
export async function startTlsEchoServer(): Promise<{
  port: number;
  url: string;
  caPem: string;
  stop(): Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'ep-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'pipe' },
    );
  } catch (err) {
    throw new Error(`openssl is needed to make a test certificate and failed: ${String(err)}`);
  }
  const key = readFileSync(join(dir, 'key.pem'));
  const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
  rmSync(dir, { recursive: true, force: true });
  const server = createHttpsServer({ key, cert }, (req, res) => {
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ ip: req.socket.remoteAddress?.replace(/^::ffff:/, '') }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `https://127.0.0.1:${port}/ip`,
    caPem: cert,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}
