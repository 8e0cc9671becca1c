import { createServer, isIP, type Server, type Socket } from 'node:net';
import type { GatewayContext } from './gateway-context.js';
import type { GatewayLimits } from './limits.js';
import type { PoolDemand } from './pool-demand.js';
import { type ClientIdentity, credentialsIdentity } from './session.js';
import { connectTarget, openTunnel, type Refusal, type TunnelAnswers } from './tunnel.js';

/** What the SOCKS5 listener shares with the HTTP side: the data path, the limits, the caps. */
export interface SocksDeps {
  ctx: GatewayContext;
  limits: Required<GatewayLimits>;
  /** Whether the client's address may open one more connection (counted until it closes). */
  admitClient(socket: Socket): boolean;
  /** Whether one more tunnel fits under the cap (counted until the client closes). */
  admitTunnel(client: Socket): boolean;
  /** Whether proxy users are configured: then only username/password is offered. */
  requiresAuth(): boolean;
  /** The pool's demand: a tunnel counts as an arrival, and waits (the wake signal) while the pool has no member. */
  demand: Pick<PoolDemand, 'arrived' | 'hold'>;
}

// RFC 1928 and RFC 1929 constants.
const VERSION = 5;
const NO_AUTH = 0x00;
const USER_PASS = 0x02;
const NO_METHOD = 0xff;
const AUTH_VERSION = 1;
const CMD_CONNECT = 1;
const ATYP_IPV4 = 1;
const ATYP_DOMAIN = 3;
const ATYP_IPV6 = 4;
export const SOCKS_REPLY = {
  succeeded: 0x00,
  generalFailure: 0x01,
  notAllowed: 0x02,
  hostUnreachable: 0x04,
  connectionRefused: 0x05,
  commandNotSupported: 0x07,
  addressTypeNotSupported: 0x08,
} as const;
/** The longest a well-formed handshake gets before its request is complete (greeting, auth, request). */
const MAX_HANDSHAKE = 2 + 255 + 3 + 255 + 255 + 4 + 1 + 255 + 2;

/** A reply with an unspecified bound address: clients of a CONNECT do not use it. */
const reply = (code: number) => Buffer.from([VERSION, code, 0, ATYP_IPV4, 0, 0, 0, 0, 0, 0]);

/**
 * The SOCKS5 reply for a tunnel that did not open. A dead target is the target's doing (the member
 * closed without answering, or refused it): host unreachable or connection refused, as a SOCKS
 * server dialling it itself would say; a ban is "not allowed"; anything else a general failure.
 */
export function socksReplyFor(why: Refusal): number {
  if (why === 'target-unreachable' || why === 'target-timeout') return SOCKS_REPLY.hostUnreachable;
  if (why === 'target-refused') return SOCKS_REPLY.connectionRefused;
  if (why.startsWith('status-')) return SOCKS_REPLY.notAllowed;
  return SOCKS_REPLY.generalFailure;
}

/**
 * The gateway's SOCKS5 listener (RFC 1928 CONNECT, RFC 1929 username/password). Each tunnel goes
 * through a member as an HTTP CONNECT, so a domain name is resolved by the member, never here, and
 * attribution, retries, caps and metrics are the HTTP side's.
 */
export function socksServer(deps: SocksDeps): Server {
  const server = createServer({ noDelay: true }, (s) => {
    if (deps.admitClient(s)) handshake(deps, s);
  });
  server.maxConnections = deps.limits.maxConnections;
  return server;
}

/** Reads the greeting, the credentials and the request, then opens the tunnel. */
function handshake(deps: SocksDeps, client: Socket): void {
  const { ctx, limits } = deps;
  const { stats } = ctx;
  let buf: Buffer = Buffer.alloc(0);
  let stage: 'greeting' | 'auth' | 'request' = 'greeting';
  let id: ClientIdentity = {};
  client.on('error', () => client.destroy());
  // A client that does not finish its handshake in time is cut (slowloris on this side too).
  client.setTimeout(limits.headersTimeoutMs, () => {
    stats.reject('header-timeout');
    client.destroy();
  });
  const refuse = (reason: string, answer?: Buffer) => {
    client.off('data', onData);
    stats.reject(reason);
    if (answer) client.end(answer);
    client.destroySoon();
  };
  /** Refuses and ends the handshake's parsing loop. */
  const stop = (reason: string, answer?: Buffer): number => {
    refuse(reason, answer);
    return -1;
  };
  const onData = (chunk: Buffer) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    if (buf.length > MAX_HANDSHAKE) return refuse('bad-request');
    for (;;) {
      const used = stage === 'greeting' ? greeting() : stage === 'auth' ? credentials() : request();
      if (used <= 0) return;
      buf = buf.subarray(used);
    }
  };
  /** Picks username/password when users are configured (or offered, to read a session), else none. */
  const greeting = (): number => {
    if (buf.length < 2) return 0;
    if (buf[0] !== VERSION) return stop('bad-request');
    const n = buf[1] as number;
    if (buf.length < 2 + n) return 0;
    const methods = buf.subarray(2, 2 + n);
    const method = methods.includes(USER_PASS)
      ? USER_PASS
      : !deps.requiresAuth() && methods.includes(NO_AUTH)
        ? NO_AUTH
        : NO_METHOD;
    if (method === NO_METHOD) return stop('auth', Buffer.from([VERSION, NO_METHOD]));
    client.write(Buffer.from([VERSION, method]));
    stage = method === USER_PASS ? 'auth' : 'request';
    return 2 + n;
  };
  const credentials = (): number => {
    if (buf.length < 2) return 0;
    if (buf[0] !== AUTH_VERSION) return stop('bad-request');
    const ulen = buf[1] as number;
    if (buf.length < 3 + ulen) return 0;
    const plen = buf[2 + ulen] as number;
    if (buf.length < 3 + ulen + plen) return 0;
    id = credentialsIdentity(
      buf.subarray(2, 2 + ulen).toString('utf8'),
      buf.subarray(3 + ulen, 3 + ulen + plen).toString('utf8'),
    );
    if (!ctx.authorized(id)) return stop('auth', Buffer.from([AUTH_VERSION, 1]));
    client.write(Buffer.from([AUTH_VERSION, 0]));
    stage = 'request';
    return 3 + ulen + plen;
  };
  const request = (): number => {
    if (buf.length < 5) return 0;
    if (buf[0] !== VERSION) return stop('bad-request');
    const atyp = buf[3];
    const addrLen =
      atyp === ATYP_IPV4 ? 4 : atyp === ATYP_IPV6 ? 16 : atyp === ATYP_DOMAIN ? 1 + (buf[4] as number) : -1;
    if (addrLen < 0) return stop('bad-request', reply(SOCKS_REPLY.addressTypeNotSupported));
    const end = 4 + addrLen + 2;
    if (buf.length < end) return 0;
    if (buf[1] !== CMD_CONNECT) return stop('bad-request', reply(SOCKS_REPLY.commandNotSupported));
    const target = connectTarget(`${address(buf, atyp as number, addrLen)}:${buf.readUInt16BE(end - 2)}`);
    if (!target) return stop('bad-request', reply(SOCKS_REPLY.generalFailure));
    // The handshake is over: what the client sent after it is the tunnel's first bytes.
    client.off('data', onData);
    client.pause();
    client.setTimeout(0);
    start(target, buf.subarray(end));
    return -1;
  };
  const start = (target: string, head: Buffer) => {
    if (ctx.draining()) return refuse('draining', reply(SOCKS_REPLY.generalFailure));
    if (!deps.admitTunnel(client)) return refuse('tunnel-cap', reply(SOCKS_REPLY.generalFailure));
    // As a CONNECT on the HTTP side: counted toward the load, and held while the pool wakes.
    deps.demand.arrived();
    deps.demand.hold({
      socket: client,
      go: () => openTunnel(ctx, client, head, target, id, socksAnswers(client)),
      // SOCKS5 has no Retry-After: the client hears a general failure, as for no member at all.
      giveUp: () => refuse('wake-timeout', reply(SOCKS_REPLY.generalFailure)),
    });
  };
  client.on('data', onData);
}

/** The request's address as a CONNECT target host: dotted IPv4, bracketed IPv6, or the name as sent. */
function address(buf: Buffer, atyp: number, len: number): string {
  if (atyp === ATYP_IPV4) return [...buf.subarray(4, 8)].join('.');
  if (atyp === ATYP_IPV6) {
    const groups: string[] = [];
    for (let i = 0; i < 16; i += 2) groups.push(buf.readUInt16BE(4 + i).toString(16));
    const v6 = groups.join(':');
    return isIP(v6) === 6 ? `[${v6}]` : '';
  }
  return buf.subarray(5, 4 + len).toString('latin1');
}

function socksAnswers(client: Socket): TunnelAnswers {
  return {
    refuse(_status, _text, why) {
      client.end(reply(socksReplyFor(why)));
    },
    established() {
      client.write(reply(SOCKS_REPLY.succeeded));
    },
  };
}
