import { Agent, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { type GatewayContext, MEMBER_HEADER, MOVED_HEADER } from './gateway-context.js';
import { type ClientIdentity, SESSION_HEADER } from './session.js';

// Hop-by-hop and gateway-only headers never go to the member (nor hop-by-hop ones back).
const DROPPED = new Set([
  'proxy-authorization',
  'proxy-connection',
  SESSION_HEADER,
  'connection',
  'keep-alive',
]);
const DROPPED_BACK = new Set(['connection', 'keep-alive', 'proxy-connection']);

/**
 * The raw header list without the dropped names: the client's header order and case go to the
 * member unchanged (sites fingerprint both), and no header object is built per request.
 */
function keptHeaders(raw: readonly string[], dropped: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (!dropped.has(name.toLowerCase())) out.push(name, raw[i + 1] as string);
  }
  return out;
}

function requestHasBody(req: IncomingMessage): boolean {
  const len = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (len !== undefined && len !== '0');
}

/** Keep-alive connections to the members, so a plain request does not pay a TCP handshake. */
export function memberAgent(): Agent {
  return new Agent({ keepAlive: true, maxFreeSockets: 256, scheduling: 'lifo', noDelay: true });
}

/**
 * Forwards one plain-HTTP proxy request (absolute URL) through a member: the client's request
 * head and body to the member, the member's answer back with the member's name (and, for a
 * session that moved, where from). A member that cannot be reached is cooled down and, for a
 * request without a body, the next member is tried; a ban status cools the member down too.
 */
export function forwardRequest(
  ctx: GatewayContext,
  agent: Agent,
  req: IncomingMessage,
  res: ServerResponse,
  id: ClientIdentity,
): void {
  const headers = keptHeaders(req.rawHeaders, DROPPED);
  const retryable = !requestHasBody(req);
  const tried = new Set<string>();
  const attempt = () => {
    const choice = ctx.members.choose(id.session, tried);
    if (!choice) {
      ctx.stats.reject('no-member');
      return void res.writeHead(503, { 'content-type': 'text/plain' }).end('no Ready member in the pool\n');
    }
    const { member } = choice;
    tried.add(member.name);
    const stats = ctx.stats.member(member.name);
    stats.http++;
    const done = ctx.hold(member.name);
    const up = httpRequest({
      host: member.host,
      port: member.port,
      method: req.method,
      path: req.url,
      headers,
      agent,
    });
    up.setTimeout(ctx.connectTimeoutMs);
    let answered = false;
    up.on('timeout', () =>
      up.destroy(Object.assign(new Error('no response head in time'), { code: 'ETIMEDOUT' })),
    );
    up.on('response', (ur) => {
      answered = true;
      up.setTimeout(0);
      const status = ur.statusCode ?? 502;
      if (ctx.banStatuses.has(status)) ctx.fail(member.name, 'status', `status-${status}`);
      const out = keptHeaders(ur.rawHeaders, DROPPED_BACK);
      out.push(MEMBER_HEADER, member.name);
      if (choice.movedFrom) out.push(MOVED_HEADER, choice.movedFrom);
      if (ctx.draining()) out.push('connection', 'close');
      res.writeHead(status, ur.statusMessage, out);
      ur.on('data', (c: Buffer) => {
        stats.bytesDown += c.length;
      });
      ur.pipe(res);
      ur.on('end', done);
      ur.on('error', done);
      if (ctx.debug)
        ctx.log.debug(
          { member: member.name, kind: 'http', method: req.method, status, session: id.session },
          'gateway: request',
        );
    });
    up.on('error', (err: NodeJS.ErrnoException) => {
      done();
      if (answered) return void res.destroy();
      ctx.fail(member.name, 'connect', 'connect-failed');
      ctx.log.warn(
        { member: member.name, kind: 'http', error: err.code ?? err.message },
        'gateway: member failed',
      );
      if (retryable && tried.size < ctx.attempts && !res.headersSent) return attempt();
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
      req.on('data', (c: Buffer) => {
        stats.bytesUp += c.length;
      });
      req.pipe(up);
    }
  };
  attempt();
}
