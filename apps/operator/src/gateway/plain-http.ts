import {
  type Agent,
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { BAN_REPORT_HEADER, type GatewayContext, MEMBER_HEADER, MOVED_HEADER } from './gateway-context.js';
import type { MemberStats } from './gateway-stats.js';
import type { GatewayMember } from './member-table.js';
import { type Outcome, worthRetrying } from './outcomes.js';
import { type ClientIdentity, SESSION_HEADER } from './session.js';

// Hop-by-hop and gateway-only headers never go to the member (nor hop-by-hop ones back).
const DROPPED = new Set([
  'proxy-authorization',
  'proxy-connection',
  SESSION_HEADER,
  BAN_REPORT_HEADER,
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

/**
 * The member's body to the client, counted: one 'data' listener that counts and writes, pausing
 * the member on the client's backpressure. Not pipe(), which registers half a dozen listeners
 * and closures per request for cases (unpipe, a destination error) the gateway handles itself
 * (the client leaving destroys the member request).
 */
function relayBody(ur: IncomingMessage, res: ServerResponse, stats: MemberStats): void {
  const resume = () => ur.resume();
  ur.on('data', (c: Buffer) => {
    stats.bytesDown += c.length;
    if (!res.write(c)) {
      ur.pause();
      res.once('drain', resume);
    }
  });
  ur.once('end', () => res.end());
}

/** Keep-alive connections to the members, so a plain request does not pay a TCP handshake. */
export function memberAgent(): Agent {
  return new HttpAgent({ keepAlive: true, maxFreeSockets: 256, scheduling: 'lifo', noDelay: true });
}

/** Why a member request was cut by the gateway itself (its own timers), as the outcome to count. */
class Cut extends Error {
  constructor(readonly outcome: 'connect-failed' | 'target-timeout') {
    super(outcome);
  }
}

/**
 * Forwards one plain-HTTP proxy request (absolute URL) through a member: the client's request
 * head and body to the member, the member's answer back with the member's name (and, for a
 * session that moved, where from).
 *
 * Failures are attributed: a member that cannot be reached, or that closes or resets before
 * answering, is cooled down and (for a request without a body) the next member is tried; a ban
 * status cools it down too. A client that goes away, a member answering its own 5xx for a dead
 * target, or a slow origin cool nobody down.
 */
export function forwardRequest(
  ctx: GatewayContext,
  agent: Agent,
  req: IncomingMessage,
  res: ServerResponse,
  id: ClientIdentity,
): void {
  const answerTimeoutMs = ctx.answerTimeoutMs;
  const headers = keptHeaders(req.rawHeaders, DROPPED);
  const retryable = !requestHasBody(req);
  const tried = new Set<string>();
  let clientGone = false;
  let current: { up: ClientRequest; member: string } | undefined;
  // The client leaving first is nobody's failure: counted under its own label, the member request
  // cut (destroying it without an error raises none, so it is counted here).
  res.on('close', () => {
    if (res.writableFinished) return;
    clientGone = true;
    if (!current) return;
    ctx.outcome(current.member, 'client-abort');
    current.up.destroy();
  });
  // Under per-connection rotation a client connection keeps its member while that stays eligible
  // (and has not just failed this request); a session always decides by itself.
  const pinning = ctx.rotate === 'per-connection' && id.session === undefined;
  const choose = () => {
    if (pinning) {
      const name = ctx.pinned.get(req.socket);
      const member =
        name && !tried.has(name) ? ctx.members.eligible().find((m) => m.name === name) : undefined;
      if (member) return { member };
    }
    const c = ctx.members.choose(id.session, tried);
    if (c && pinning) ctx.pinned.set(req.socket, c.member.name);
    return c;
  };
  // A keep-alive socket the member closed while idle fails on reuse; that is no failure of the
  // member's, so the request goes again (once) on a fresh connection to the same member.
  const attempt = (staleRetry?: GatewayMember, movedFrom?: string) => {
    if (clientGone) return;
    const choice = staleRetry ? { member: staleRetry, movedFrom } : choose();
    if (!choice) {
      ctx.stats.reject('no-member');
      return void res.writeHead(503, { 'content-type': 'text/plain' }).end('no Ready member in the pool\n');
    }
    const { member } = choice;
    tried.add(member.name);
    const stats = ctx.stats.member(member.name);
    if (!staleRetry) stats.http++;
    const done = ctx.hold(member.name);
    const up = httpRequest({
      host: member.host,
      port: member.port,
      method: req.method,
      path: req.url,
      headers,
      agent: staleRetry ? false : agent,
    });
    current = { up, member: member.name };
    let answered = false;
    let connected = false;
    // Until the member accepted the connection the connect timeout runs, then the answer timeout.
    up.on('socket', (s) => {
      const onConnect = () => {
        connected = true;
        up.setTimeout(answerTimeoutMs);
      };
      if (s.connecting) {
        up.setTimeout(ctx.connectTimeoutMs);
        s.once('connect', onConnect);
      } else onConnect();
    });
    up.on('timeout', () => up.destroy(new Cut(connected ? 'target-timeout' : 'connect-failed')));
    up.on('response', (ur) => {
      answered = true;
      up.setTimeout(0);
      const status = ur.statusCode ?? 502;
      if (ctx.banStatuses.has(status)) ctx.outcome(member.name, `status-${status}`);
      const out = keptHeaders(ur.rawHeaders, DROPPED_BACK);
      out.push(MEMBER_HEADER, member.name);
      if (choice.movedFrom) out.push(MOVED_HEADER, choice.movedFrom);
      if (ctx.draining()) out.push('connection', 'close');
      res.writeHead(status, ur.statusMessage, out);
      relayBody(ur, res, stats);
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
      if (clientGone) return;
      if (answered) {
        ctx.outcome(member.name, 'answer-cut', err.code);
        return void res.destroy();
      }
      if (!staleRetry && up.reusedSocket && connected && err.code === 'ECONNRESET' && retryable)
        return attempt(member, choice.movedFrom);
      const outcome: Outcome =
        err instanceof Cut
          ? err.outcome
          : !connected
            ? 'connect-failed'
            : err.message === 'socket hang up'
              ? 'member-closed'
              : 'member-reset';
      ctx.outcome(member.name, outcome, err instanceof Cut ? 'ETIMEDOUT' : (err.code ?? err.message));
      if (worthRetrying(outcome) && retryable && tried.size < ctx.attempts && !res.headersSent)
        return attempt();
      if (res.headersSent) return void res.destroy();
      if (outcome === 'target-timeout')
        return void res
          .writeHead(504, { 'content-type': 'text/plain' })
          .end(`no answer through member ${member.name} within ${answerTimeoutMs} ms\n`);
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`member ${member.name} failed\n`);
    });
    res.once('close', done);
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
