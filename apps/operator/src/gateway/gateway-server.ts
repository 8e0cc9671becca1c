import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { type AddressInfo, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type OpLogger, silentOpLogger } from '../controller/op-logger.js';
import type { ProxyUsers } from './basic-auth.js';
import { connectThrough, MemberConnectError } from './connect-through.js';
import { GatewayMetrics } from './gateway-metrics.js';
import { type GatewayMember, MemberTable, type MemberTableOptions } from './member-table.js';
import { type ClientIdentity, clientIdentity, SESSION_HEADER } from './session.js';

/** The header that names the member a plain-HTTP response came through. */
export const MEMBER_HEADER = 'x-egress-member';
/** Set on a plain-HTTP response when the session's member left and the session moved. */
export const MOVED_HEADER = 'x-egress-session-moved';

export interface GatewayOptions extends MemberTableOptions {
  /** The pool's name: a metrics label and a log field. */
  pool: string;
  host?: string;
  port?: number;
  /** Proxy users; without them the gateway listens on loopback only. */
  users?: ProxyUsers;
  /** Member answers that mean "banned": the member is cooled down. */
  banStatuses?: readonly number[];
  /** How long to wait for a member's answer to CONNECT (or its response head). */
  connectTimeoutMs?: number;
  /** Members tried for one connection whose connect fails (each failure cools that member down). */
  connectAttempts?: number;
  metrics?: GatewayMetrics;
  logger?: OpLogger;
}

export interface RunningGateway {
  readonly host: string;
  readonly port: number;
  /** `http://host:port`, for clients' `-x`. */
  readonly url: string;
  readonly members: MemberTable;
  readonly metrics: GatewayMetrics;
  /** Open client connections (tunnels and plain-HTTP keep-alive sockets). */
  openConnections(): number;
  /** Stops accepting, lets open connections finish for up to `graceMs`, then cuts the rest. */
  close(graceMs?: number): Promise<void>;
}

/** A gateway configuration that must not start (an open proxy, a bad option). */
export class GatewayConfigError extends Error {
  override name = 'GatewayConfigError';
}

const isLoopback = (host: string) =>
  host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));

// Hop-by-hop and gateway-only headers never go to the member.
const DROPPED = new Set([
  'proxy-authorization',
  'proxy-connection',
  SESSION_HEADER,
  'connection',
  'keep-alive',
]);

const TARGET = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

function requestHasBody(req: IncomingMessage): boolean {
  const len = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (len !== undefined && len !== '0');
}

/**
 * The pool's single endpoint: an HTTP forward proxy (plain requests and CONNECT) that sends each
 * new connection through an eligible member, chained as that member's client. Written here
 * rather than on proxy-chain because the gateway must see each member answer (403/429 cool the
 * member down), add headers to plain responses (the session moved), and count connections per
 * member for least-connections; proxy-chain's upstream chaining exposes none of these.
 */
export async function startGateway(opts: GatewayOptions, signal?: AbortSignal): Promise<RunningGateway> {
  const host = opts.host ?? '127.0.0.1';
  const pool = opts.pool;
  if (!opts.users?.size && !isLoopback(host))
    throw new GatewayConfigError(
      `refusing to listen on ${host} without proxy users: a gateway reachable from other machines must require Basic auth (give it a users Secret), or listen on a loopback address`,
    );
  const banStatuses = new Set(opts.banStatuses ?? [403, 429]);
  for (const s of banStatuses)
    if (!Number.isInteger(s) || s < 400 || s > 599)
      throw new GatewayConfigError(`ban status ${s}: expected an HTTP error status 400-599`);
  const connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
  const attempts = opts.connectAttempts ?? 2;
  const log = (opts.logger ?? silentOpLogger).child({ pool });
  const metrics = opts.metrics ?? new GatewayMetrics();
  const members = new MemberTable({
    ...opts,
    onCooldown: (member, reason) => {
      metrics.cooldowns.inc({ pool, member, reason });
      metrics.cooledDown.set({ pool, member }, 1);
      log.warn({ member, reason }, 'gateway: member cooled down');
      opts.onCooldown?.(member, reason);
    },
  });
  const agent = new Agent({ keepAlive: true, maxFreeSockets: 64 });
  const sockets = new Set<Socket | Duplex>();
  let draining = false;

  const refuse = (reason: string) => metrics.rejected.inc({ pool, reason });
  const authorized = (id: ClientIdentity) => !opts.users?.size || opts.users.check(id.user, id.password);
  const track = (member: string) => {
    metrics.connections.inc({ pool, member, kind: 'http' });
    metrics.active.inc({ pool, member });
    const release = members.hold(member);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      release();
      metrics.active.dec({ pool, member });
    };
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '';
    if (url.startsWith('/')) {
      // The gateway's own endpoints, for probes: alive, and ready (some member is eligible).
      if (url === '/healthz') return void res.writeHead(200).end('ok\n');
      if (url === '/readyz')
        return void res.writeHead(members.eligible().length && !draining ? 200 : 503).end();
      refuse('bad-request');
      return void res
        .writeHead(400, { 'content-type': 'text/plain' })
        .end('expected an absolute URL (a proxy request)\n');
    }
    const id = clientIdentity(req.headers);
    if (!authorized(id)) {
      refuse('auth');
      return void res
        .writeHead(407, {
          'proxy-authenticate': `Basic realm="egress-proxies ${pool}"`,
          'content-type': 'text/plain',
        })
        .end('proxy authentication required\n');
    }
    if (draining) {
      refuse('draining');
      return void res.writeHead(503, { connection: 'close' }).end('gateway is shutting down\n');
    }
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !DROPPED.has(k)) headers[k] = v;
    const retryable = !requestHasBody(req);
    const tried = new Set<string>();
    const attempt = () => {
      const choice = members.choose(id.session, tried);
      if (!choice) {
        refuse('no-member');
        return void res.writeHead(503, { 'content-type': 'text/plain' }).end('no Ready member in the pool\n');
      }
      const { member } = choice;
      tried.add(member.name);
      const done = track(member.name);
      const up = httpRequest({
        host: member.host,
        port: member.port,
        method: req.method,
        path: url,
        headers,
        agent,
      });
      up.setTimeout(connectTimeoutMs);
      let answered = false;
      up.on('timeout', () =>
        up.destroy(Object.assign(new Error('no response head in time'), { code: 'ETIMEDOUT' })),
      );
      up.on('response', (ur) => {
        answered = true;
        up.setTimeout(0);
        const status = ur.statusCode ?? 502;
        if (banStatuses.has(status)) {
          metrics.failures.inc({ pool, member: member.name, reason: 'status' });
          members.coolDown(member.name, `status-${status}`);
        }
        const out: Record<string, string | string[]> = { [MEMBER_HEADER]: member.name };
        for (const [k, v] of Object.entries(ur.headers))
          if (v !== undefined && k !== 'connection' && k !== 'keep-alive') out[k] = v;
        if (choice.movedFrom) out[MOVED_HEADER] = choice.movedFrom;
        if (draining) out.connection = 'close';
        res.writeHead(status, out);
        ur.on('data', (c: Buffer) =>
          metrics.bytes.inc({ pool, member: member.name, direction: 'down' }, c.length),
        );
        ur.pipe(res);
        ur.on('end', done);
        ur.on('error', done);
        log.debug(
          { member: member.name, kind: 'http', method: req.method, status, session: id.session },
          'gateway: request',
        );
      });
      up.on('error', (err: NodeJS.ErrnoException) => {
        done();
        if (answered) return void res.destroy();
        metrics.failures.inc({ pool, member: member.name, reason: 'connect' });
        members.coolDown(member.name, 'connect-failed');
        log.warn(
          { member: member.name, kind: 'http', error: err.code ?? err.message },
          'gateway: member failed',
        );
        if (retryable && tried.size < attempts && !res.headersSent) return attempt();
        if (!res.headersSent)
          res.writeHead(502, { 'content-type': 'text/plain' }).end(`member ${member.name} failed\n`);
        else res.destroy();
      });
      res.on('close', () => {
        if (!res.writableFinished) up.destroy();
        done();
      });
      if (retryable) up.end();
      else {
        req.on('data', (c: Buffer) =>
          metrics.bytes.inc({ pool, member: member.name, direction: 'up' }, c.length),
        );
        req.pipe(up);
      }
    };
    attempt();
  };

  const onConnect = (req: IncomingMessage, client: Duplex, head: Buffer) => {
    const answer = (status: number, text: string, extra = '') => {
      client.end(`HTTP/1.1 ${status} ${text}\r\n${extra}Content-Length: 0\r\nConnection: close\r\n\r\n`);
    };
    client.on('error', () => client.destroy());
    const target = req.url ?? '';
    const m = TARGET.exec(target);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) {
      refuse('bad-request');
      return answer(400, 'Bad Request');
    }
    const id = clientIdentity(req.headers);
    if (!authorized(id)) {
      refuse('auth');
      return answer(
        407,
        'Proxy Authentication Required',
        `Proxy-Authenticate: Basic realm="egress-proxies ${pool}"\r\n`,
      );
    }
    if (draining) {
      refuse('draining');
      return answer(503, 'Service Unavailable');
    }
    const abort = new AbortController();
    const onClientGone = () => abort.abort();
    client.once('close', onClientGone);
    const tried = new Set<string>();
    const attempt = async (): Promise<void> => {
      const choice = members.choose(id.session, tried);
      if (!choice) {
        refuse('no-member');
        return answer(tried.size ? 502 : 503, tried.size ? 'Bad Gateway' : 'Service Unavailable');
      }
      const member: GatewayMember = choice.member;
      tried.add(member.name);
      let a: Awaited<ReturnType<typeof connectThrough>>;
      try {
        a = await connectThrough(member, target, { timeoutMs: connectTimeoutMs, signal: abort.signal });
      } catch (err) {
        if (abort.signal.aborted) return;
        const code = err instanceof MemberConnectError ? err.code : 'ERROR';
        metrics.failures.inc({ pool, member: member.name, reason: 'connect' });
        members.coolDown(member.name, 'connect-failed');
        log.warn({ member: member.name, kind: 'connect', error: code }, 'gateway: member failed');
        if (tried.size < attempts) return attempt();
        return answer(502, 'Bad Gateway');
      }
      client.off('close', onClientGone);
      if (a.status !== 200) {
        a.socket.destroy();
        if (banStatuses.has(a.status)) {
          metrics.failures.inc({ pool, member: member.name, reason: 'status' });
          members.coolDown(member.name, `status-${a.status}`);
        }
        return answer(a.status, 'Refused By Member');
      }
      metrics.connections.inc({ pool, member: member.name, kind: 'connect' });
      metrics.active.inc({ pool, member: member.name });
      const release = members.hold(member.name);
      const upstream = a.socket;
      sockets.add(upstream);
      let closed = false;
      const finish = () => {
        if (closed) return;
        closed = true;
        release();
        metrics.active.dec({ pool, member: member.name });
        metrics.bytes.inc({ pool, member: member.name, direction: 'up' }, upstream.bytesWritten);
        metrics.bytes.inc({ pool, member: member.name, direction: 'down' }, upstream.bytesRead);
        sockets.delete(upstream);
        upstream.destroy();
        client.destroy();
      };
      upstream.on('error', () => {
        metrics.failures.inc({ pool, member: member.name, reason: 'reset' });
        finish();
      });
      upstream.on('close', finish);
      client.on('close', finish);
      client.write(
        `HTTP/1.1 200 Connection Established\r\n${MEMBER_HEADER}: ${member.name}\r\n${choice.movedFrom ? `${MOVED_HEADER}: ${choice.movedFrom}\r\n` : ''}\r\n`,
      );
      if (a.rest.length) client.write(a.rest);
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
      log.debug({ member: member.name, kind: 'connect', session: id.session }, 'gateway: tunnel');
    };
    void attempt();
  };

  const server: Server = createServer({ requestTimeout: 0 }, onRequest);
  server.on('connect', onConnect);
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('clientError', (_err, s) => s.destroy());
  await new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      server.close();
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    server.once('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      reject(err);
    });
    server.listen(opts.port ?? 0, host, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  log.info({ host, port: bound, auth: Boolean(opts.users?.size) }, 'gateway: listening');
  const urlHost = isIP(host) === 6 ? `[${host}]` : host;

  let closing: Promise<void> | undefined;
  return {
    host,
    port: bound,
    url: `http://${urlHost}:${bound}`,
    members,
    metrics,
    openConnections: () => sockets.size,
    close(graceMs = 10_000) {
      closing ??= (async () => {
        draining = true;
        const stopped = new Promise<void>((r) => server.close(() => r()));
        server.closeIdleConnections();
        const deadline = setTimeout(() => {
          for (const s of sockets) s.destroy();
          server.closeAllConnections();
        }, graceMs);
        await stopped;
        while (sockets.size) await new Promise((r) => setTimeout(r, 20));
        clearTimeout(deadline);
        agent.destroy();
        log.info({}, 'gateway: stopped');
      })();
      return closing;
    },
  };
}
