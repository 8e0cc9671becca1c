// The `http` server's handlers (plain requests and CONNECT) and the SOCKS5 listener: each checks
// the client (auth, the drain, a ban report, the tunnel cap) before the pool's demand routes it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server as NetServer, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { BAN_REPORT_HEADER, type GatewayContext, MEMBER_HEADER } from './gateway-context.js';
import { forwardRequest } from './plain-http.js';
import type { Serving } from './serving.js';
import { clientIdentity } from './session.js';
import { socksServer } from './socks5.js';
import { connectTarget, httpTunnelAnswers, openTunnel } from './tunnel.js';

/** The SOCKS5 listener on the same data path, users and caps as the HTTP one. */
export function socksListener(serving: Serving): NetServer {
  const { ctx, limits, state } = serving;
  return socksServer({
    ctx,
    limits,
    admitClient: (s) => serving.admitClient(s, () => s.destroy()),
    admitTunnel: (client) => admitTunnel(serving, client),
    requiresAuth: () => Boolean(state.users?.size),
    demand: serving.demand,
  });
}

/**
 * One more tunnel, if it fits under the cap: counted until the client closes, and closed when it
 * carries nothing either way for the idle timeout (the relay writes to the client socket, so its
 * idle timer sees both directions).
 */
function admitTunnel({ state, limits }: Serving, client: Duplex): boolean {
  if (state.tunnels >= limits.maxTunnels) return false;
  state.tunnels++;
  client.once('close', () => state.tunnels--);
  (client as Socket).setTimeout?.(limits.tunnelIdleTimeoutMs, () => client.destroy());
  return true;
}

/**
 * A ban report (authenticated, checked by the caller) cools the named member down before the
 * request is routed, so a session on it moves now. An unknown member is an error naming it.
 */
function applyBanReport(ctx: GatewayContext, req: IncomingMessage): string | undefined {
  const named = req.headers[BAN_REPORT_HEADER];
  if (named === undefined) return undefined;
  const member = Array.isArray(named) ? named[0] : named;
  if (!member || !ctx.members.members().some((m) => m.name === member)) {
    ctx.stats.reject('bad-ban-report');
    return `${BAN_REPORT_HEADER}: ${JSON.stringify(member ?? '')} is not a member of this pool; expected the name an ${MEMBER_HEADER} header gave\n`;
  }
  ctx.outcome(member, 'reported-ban');
  return undefined;
}

/** Plain HTTP: the gateway's own endpoints, then auth, the drain, a ban report, and the member. */
export function requestHandler({ ctx, limits, state, agent, realm, demand }: Serving) {
  const { stats, members } = ctx;
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '';
    if (url.length > limits.maxRequestLineBytes) {
      stats.reject('uri-too-long');
      return void res
        .writeHead(414, { 'content-type': 'text/plain', connection: 'close' })
        .end(`request URL longer than ${limits.maxRequestLineBytes} bytes\n`);
    }
    if (url.startsWith('/')) {
      // The gateway's own endpoints, for probes: alive, and ready (some member is eligible, or the
      // pool wakes on demand: taken out of a load balancer at zero, it would never see the
      // request that wakes it).
      if (url === '/healthz') return void res.writeHead(200).end('ok\n');
      if (url === '/readyz') {
        const serves = members.eligible().length > 0 || demand.wakeTimeoutMs > 0;
        return void res.writeHead(serves && !state.draining ? 200 : 503).end();
      }
      stats.reject('bad-request');
      return void res
        .writeHead(400, { 'content-type': 'text/plain' })
        .end('expected an absolute URL (a proxy request)\n');
    }
    const id = clientIdentity(req.headers);
    if (!ctx.authorized(id)) {
      stats.reject('auth');
      return void res
        .writeHead(407, { 'proxy-authenticate': realm, 'content-type': 'text/plain' })
        .end('proxy authentication required\n');
    }
    if (state.draining) {
      stats.reject('draining');
      return void res.writeHead(503, { connection: 'close' }).end('gateway is shutting down\n');
    }
    const badReport = applyBanReport(ctx, req);
    if (badReport) return void res.writeHead(400, { 'content-type': 'text/plain' }).end(badReport);
    demand.arrived();
    demand.hold({
      socket: req.socket,
      go: () => forwardRequest(ctx, agent, req, res, id),
      giveUp: (retryAfterS, why) => {
        stats.reject('wake-timeout');
        res
          .writeHead(503, { 'content-type': 'text/plain', 'retry-after': String(retryAfterS) })
          .end(`pool ${ctx.pool}: ${why}; retry after ${retryAfterS} s\n`);
      },
    });
  };
}

/** CONNECT: the same checks, the tunnel cap, then a tunnel through a member. */
export function connectHandler(serving: Serving) {
  const { ctx, limits, state, realm } = serving;
  const { stats } = ctx;
  return (req: IncomingMessage, client: Duplex, head: Buffer) => {
    const answer = (status: number, text: string, extra = '') => {
      client.end(`HTTP/1.1 ${status} ${text}\r\n${extra}Content-Length: 0\r\nConnection: close\r\n\r\n`);
    };
    client.on('error', () => client.destroy());
    (client as Socket).setNoDelay?.(true);
    if ((req.url?.length ?? 0) > limits.maxRequestLineBytes) {
      stats.reject('uri-too-long');
      return answer(414, 'URI Too Long');
    }
    const target = connectTarget(req.url);
    if (!target) {
      stats.reject('bad-request');
      return answer(400, 'Bad Request');
    }
    const id = clientIdentity(req.headers);
    if (!ctx.authorized(id)) {
      stats.reject('auth');
      return answer(407, 'Proxy Authentication Required', `Proxy-Authenticate: ${realm}\r\n`);
    }
    if (state.draining) {
      stats.reject('draining');
      return answer(503, 'Service Unavailable');
    }
    const badReport = applyBanReport(ctx, req);
    if (badReport) return answer(400, 'Bad Request');
    if (!admitTunnel(serving, client)) {
      stats.reject('tunnel-cap');
      return answer(503, 'Service Unavailable');
    }
    serving.demand.arrived();
    serving.demand.hold({
      socket: client as Socket,
      go: () => openTunnel(ctx, client, head, target, id, httpTunnelAnswers(client, answer)),
      giveUp: (retryAfterS) => {
        stats.reject('wake-timeout');
        answer(503, 'Service Unavailable', `Retry-After: ${retryAfterS}\r\n`);
      },
    });
  };
}
