import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, isIP, type Server as NetServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { POOL_ROTATES } from '../api/proxy-pool.js';
import { type OpLogger, silentOpLogger } from '../domain/op-logger.js';
import type { ProxyUsers } from './basic-auth.js';
import { BAN_REPORT_HEADER, debugEnabled, type GatewayContext, MEMBER_HEADER } from './gateway-context.js';
import { GatewayMetrics } from './gateway-metrics.js';
import { GatewayStats } from './gateway-stats.js';
import { type GatewayLimits, resolveLimits } from './limits.js';
import { isLoopback } from './loopback.js';
import {
  type CooldownListener,
  MemberTable,
  type MemberTableOptions,
  type MemberTableSettings,
} from './member-table.js';
import { isMemberFault } from './outcomes.js';
import { forwardRequest, memberAgent } from './plain-http.js';
import { type GatewayLoad, PoolDemand } from './pool-demand.js';
import { RawHttp, type RawHttpCounters } from './raw-http.js';
import { type ClientIdentity, clientIdentity } from './session.js';
import { socksServer } from './socks5.js';
import { connectTarget, httpTunnelAnswers, openTunnel } from './tunnel.js';

export { BAN_REPORT_HEADER, MEMBER_HEADER, MOVED_HEADER } from './gateway-context.js';

/** What the pool's spec.gateway can change while the gateway runs. */
export interface GatewaySettings extends MemberTableSettings {
  /** Member answers that mean "banned": the member is cooled down. */
  banStatuses?: readonly number[];
  /**
   * Plain HTTP without a session: `per-request` (the default) picks a member for every request,
   * also on a keep-alive connection, spreading a crawler's requests the most; `per-connection`
   * keeps a client connection's requests on one member while it stays eligible. Tunnels are one
   * connection each either way.
   */
  rotate?: Rotate;
}

/** Wake on demand (the pool's spec.autoscale.wakeTimeout). */
export interface WakeSettings {
  /** How long a request waits while the pool has no Ready member (0: not at all). */
  wakeTimeoutMs?: number;
}

export type Rotate = (typeof POOL_ROTATES)[number];
export const ROTATES: readonly Rotate[] = POOL_ROTATES;

function rotateSetting(r: string): Rotate {
  if (!(ROTATES as readonly string[]).includes(r))
    throw new GatewayConfigError(`rotate ${JSON.stringify(r)}: expected one of ${ROTATES.join(', ')}`);
  return r as Rotate;
}

export interface GatewayOptions
  extends Omit<MemberTableOptions, 'onCooldown' | 'onRecover'>,
    GatewaySettings,
    WakeSettings,
    GatewayLimits {
  /** The pool's name: a metrics label and a log field. */
  pool: string;
  host?: string;
  port?: number;
  /**
   * A SOCKS5 listener beside the HTTP one (port 0: any free port), with the same users, members,
   * caps and attribution; off loopback it needs users too.
   */
  socks?: { host: string; port: number };
  /** Proxy users; without them the gateway listens on loopback only. */
  users?: ProxyUsers;
  /** How long to wait for a member to accept the TCP connection (default 10 s); past it the member is cooled down. */
  connectTimeoutMs?: number;
  /**
   * How long a connected member may take to answer CONNECT or send its response head (default
   * 60 s): past it the client gets 504 and nobody is cooled down (the origin is slow, not the member).
   */
  answerTimeoutMs?: number;
  /** Members tried for one connection whose connect fails (each failure cools that member down). */
  connectAttempts?: number;
  metrics?: GatewayMetrics;
  logger?: OpLogger;
  /**
   * A member entered cooldown, or a later ban moved its end: by this gateway (`local`, worth
   * sharing) or from a shared mark.
   */
  onCooldown?: CooldownListener;
  /** A member's cooldown ended (or the member left while cooled down). */
  onRecover?: (member: string) => void;
  /** A request waits for a pool with no Ready member: the pool should wake (see wakeTimeoutMs). */
  onWake?: () => void;
  /**
   * Serve well-formed plain-HTTP proxy requests on raw sockets, in front of Node's HTTP parser
   * (default true): the same routing, attribution, headers and limits at about a third of the
   * CPU per request. Any other request (CONNECT, HTTP/1.0, Expect, unusual framing, failed auth,
   * the drain, no eligible member) hands its connection to the `http` path, as with false.
   */
  rawHttp?: boolean;
}

export interface RunningGateway {
  readonly host: string;
  readonly port: number;
  /** `http://host:port`, for clients' `-x`. */
  readonly url: string;
  /** The SOCKS5 listener's address and `socks5h://host:port`, when one was asked for. */
  readonly socks?: { host: string; port: number; url: string };
  readonly members: MemberTable;
  readonly metrics: GatewayMetrics;
  /** Its counters per member (the status page reads them; Prometheus reads them through metrics). */
  readonly stats: GatewayStats;
  /** The pool's load as this gateway sees it, for the autoscaler. */
  load(): GatewayLoad;
  /** Applies new settings (the pool's spec changed); the listening address stays. */
  configure(settings: GatewaySettings & WakeSettings): void;
  /** Replaces the proxy users (a rotated Secret); a gateway off loopback cannot drop them all. */
  setUsers(users: ProxyUsers | undefined): void;
  /** Open client connections (tunnels and plain-HTTP keep-alive sockets). */
  openConnections(): number;
  /** Requests the raw plain-HTTP path served and connections it handed on (undefined when it is off). */
  readonly rawHttp: RawHttpCounters | undefined;
  /** Stops accepting, lets open connections finish for up to `graceMs`, then cuts the rest. */
  close(graceMs?: number): Promise<void>;
}

/** A gateway configuration that must not start (an open proxy, a bad option). */
export class GatewayConfigError extends Error {
  override name = 'GatewayConfigError';
}

function banSet(statuses: readonly number[]): Set<number> {
  for (const s of statuses)
    if (!Number.isInteger(s) || s < 400 || s > 599)
      throw new GatewayConfigError(`ban status ${s}: expected an HTTP error status 400-599`);
  return new Set(statuses);
}

/**
 * The pool's single endpoint: an HTTP forward proxy (plain requests and CONNECT) that sends each
 * new connection through an eligible member, chained as that member's client.
 *
 * Written here rather than on proxy-chain (which the members run): its upstream chaining answers
 * the client itself, so the gateway could neither see a member's status before the client does
 * (403/429 cool the member down), nor add the member and moved-session headers, nor retry a
 * failed connect on another member, nor count connections per member for least-connections; its
 * data path is the same socket-to-socket pipe as this one.
 */
export async function startGateway(opts: GatewayOptions, signal?: AbortSignal): Promise<RunningGateway> {
  const host = opts.host ?? '127.0.0.1';
  const pool = opts.pool;
  guardUsers(host, opts.users);
  if (opts.socks) guardUsers(opts.socks.host, opts.users);
  const limits = checkedLimits(opts);
  const log = (opts.logger ?? silentOpLogger).child({ pool });
  const metrics = opts.metrics ?? new GatewayMetrics();
  const stats = new GatewayStats(pool);
  metrics.register(stats);
  const members = observedMembers(opts, stats, log);
  const state: ServingState = { users: opts.users, draining: false, tunnels: 0 };
  const ctx = dataPathContext(opts, members, stats, log, state);
  const serving: Serving = {
    ctx,
    demand: new PoolDemand(members, {
      ...(opts.wakeTimeoutMs !== undefined ? { wakeTimeoutMs: opts.wakeTimeoutMs } : {}),
      ...(opts.onWake ? { onWake: opts.onWake } : {}),
    }),
    limits,
    state,
    agent: memberAgent(),
    realm: `Basic realm="egress-proxies ${pool}"`,
    admitClient: clientAdmission(ctx, limits),
  };
  const server = gatewayServer(serving);
  if (opts.rawHttp ?? true) serving.raw = rawHttpFront(server, serving);
  const socks = opts.socks ? socksListener(serving) : undefined;
  try {
    await listen(server, opts.port ?? 0, host, signal);
    if (socks && opts.socks) await listen(socks, opts.socks.port, opts.socks.host, signal);
  } catch (err) {
    server.close();
    serving.raw?.close();
    metrics.unregister(stats);
    throw err;
  }
  const bound = (server.address() as AddressInfo).port;
  log.info({ host, port: bound, auth: Boolean(state.users?.size) }, 'gateway: listening');
  const socksAt =
    socks && opts.socks ? { host: opts.socks.host, port: (socks.address() as AddressInfo).port } : undefined;
  if (socksAt) log.info({ ...socksAt, auth: Boolean(state.users?.size) }, 'gateway: SOCKS5 listening');
  return runningGateway(server, serving, {
    host,
    port: bound,
    metrics,
    socks: socks && socksAt && { server: socks, ...socksAt },
  });
}

/** The SOCKS5 listener on the same data path, users and caps as the HTTP one. */
function socksListener(serving: Serving): NetServer {
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

/** What may change while the gateway serves: its users (a Secret update), the drain, open tunnels. */
interface ServingState {
  users: ProxyUsers | undefined;
  draining: boolean;
  tunnels: number;
}

/** What the server's handlers share. */
interface Serving {
  ctx: GatewayContext;
  /** The load for the autoscaler, and requests held while the pool wakes. */
  demand: PoolDemand;
  limits: Required<GatewayLimits>;
  state: ServingState;
  agent: ReturnType<typeof memberAgent>;
  /** The Basic auth challenge, naming the pool. */
  realm: string;
  /** Counts a new client connection against its address's cap; over it, `refuse` runs and it is false. */
  admitClient(s: Socket, refuse: () => void): boolean;
  /** The raw plain-HTTP path in front of the `http` server, when on. */
  raw?: RawHttp;
}

/** Never an open proxy: off loopback the gateway needs users. */
function guardUsers(host: string, users: ProxyUsers | undefined): void {
  if (!users?.size && !isLoopback(host))
    throw new GatewayConfigError(
      `refusing to listen on ${host} without proxy users: a gateway reachable from other machines must require Basic auth (give it a users Secret), or listen on a loopback address`,
    );
}

/** The limits with their defaults; a bad one is a configuration error. */
function checkedLimits(opts: GatewayOptions): Required<GatewayLimits> {
  try {
    return resolveLimits(opts);
  } catch (err) {
    throw new GatewayConfigError((err as Error).message);
  }
}

/** The member table, its cooldowns and recoveries counted and logged before the caller hears of them. */
function observedMembers(opts: GatewayOptions, stats: GatewayStats, log: OpLogger): MemberTable {
  return new MemberTable({
    ...opts,
    onCooldown: (member, reason, until, origin, change) => {
      const s = stats.member(member);
      s.cooledDown = 1;
      // A later ban on a member already cooling down is no new cooldown: only its end moves.
      if (origin === 'local' && change === 'started') {
        stats.cooldown(member, reason);
        log.warn({ member, reason, until: new Date(until).toISOString() }, 'gateway: member cooled down');
      } else if (origin === 'local')
        log.debug(
          { member, reason, until: new Date(until).toISOString() },
          'gateway: member cooldown extended',
        );
      opts.onCooldown?.(member, reason, until, origin, change);
    },
    onRecover: (member) => {
      const s = stats.members.get(member);
      if (s) s.cooledDown = 0;
      opts.onRecover?.(member);
    },
  });
}

/** The context the plain-HTTP and CONNECT paths run with. */
function dataPathContext(
  opts: GatewayOptions,
  members: MemberTable,
  stats: GatewayStats,
  log: OpLogger,
  state: ServingState,
): GatewayContext {
  const ctx: GatewayContext = {
    pool: opts.pool,
    members,
    stats,
    log,
    debug: debugEnabled(log),
    banStatuses: banSet(opts.banStatuses ?? [403, 429]),
    rotate: rotateSetting(opts.rotate ?? 'per-request'),
    pinned: new WeakMap(),
    connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
    answerTimeoutMs: opts.answerTimeoutMs ?? 60_000,
    attempts: opts.connectAttempts ?? 2,
    sockets: new Set(),
    authorized: (id: ClientIdentity) => !state.users?.size || state.users.check(id.user, id.password),
    draining: () => state.draining,
    hold(member) {
      const s = stats.member(member);
      s.active++;
      const release = members.hold(member);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        s.active--;
        release();
      };
    },
    outcome(member, outcome, detail) {
      stats.failure(member, outcome);
      if (isMemberFault(outcome)) {
        log.warn({ member, reason: outcome, error: detail }, 'gateway: member failed');
        members.coolDown(member, outcome);
      } else if (ctx.debug)
        log.debug({ member, reason: outcome, error: detail }, 'gateway: connection ended');
    },
  };
  return ctx;
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
function requestHandler({ ctx, limits, state, agent, realm, demand }: Serving) {
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
function connectHandler(serving: Serving) {
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

/**
 * How often the raw path looks for heads, idle connections and awaited answers past their
 * timeouts: often enough that each is cut close to it.
 */
function checkEveryMs(limits: Required<GatewayLimits>, answerTimeoutMs: number): number {
  const shortest = Math.min(limits.headersTimeoutMs, limits.idleTimeoutMs, answerTimeoutMs);
  return Math.max(50, Math.min(1_000, Math.floor(shortest / 4)));
}

/**
 * Puts the raw path in front of the `http` server: an admitted connection is read raw first, and
 * handed to the server's own connection listener (counted once, as the admission already ran)
 * when a request needs the `http` path.
 */
function rawHttpFront(server: Server, serving: Serving): RawHttp {
  const [httpConnection, admission] = server.listeners('connection') as ((s: Socket) => void)[];
  if (!httpConnection || !admission) throw new Error('gateway: the http server has no connection listener');
  server.removeAllListeners('connection');
  const raw = new RawHttp({
    ctx: serving.ctx,
    limits: serving.limits,
    demand: serving.demand,
    handOff: (s) => httpConnection.call(server, s),
    checkEveryMs: checkEveryMs(serving.limits, serving.ctx.answerTimeoutMs),
  });
  server.on('connection', (s: Socket) => {
    let refused = false;
    serving.admitClient(s, () => {
      refused = true;
    });
    // A refused connection gets its 429 from the `http` path's listener, as without the raw path.
    if (!refused) return raw.accept(s);
    httpConnection.call(server, s);
    refuseClient(s);
  });
  return raw;
}

/** The HTTP server with the gateway's handlers and limits on it. */
function gatewayServer(serving: Serving): Server {
  const { limits } = serving;
  const server: Server = createServer(
    {
      // A request body or a tunnel may last; the head may not (slowloris).
      requestTimeout: 0,
      headersTimeout: limits.headersTimeoutMs,
      keepAliveTimeout: limits.idleTimeoutMs,
      // How often Node looks for heads past their timeout: often enough that one is cut close to it.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
      maxHeaderSize: limits.maxHeaderBytes,
      noDelay: true,
    },
    requestHandler(serving),
  );
  // At the limit new connections are closed at accept and the open ones keep being served.
  server.maxConnections = limits.maxConnections;
  server.on('connect', connectHandler(serving));
  server.on('connection', (s: Socket) => {
    serving.admitClient(s, () => refuseClient(s));
  });
  answerClientErrors(server, serving);
  return server;
}

/**
 * The per-client cap, one count per address across the HTTP and SOCKS5 listeners: a client past it
 * is refused at accept (how depends on the listener); every admitted socket is tracked for the drain.
 */
function clientAdmission(ctx: GatewayContext, limits: Required<GatewayLimits>): Serving['admitClient'] {
  const { stats, sockets } = ctx;
  const perClient = new Map<string, number>();
  return (s, refuse) => {
    const ip = s.remoteAddress ?? '';
    const n = (perClient.get(ip) ?? 0) + 1;
    if (n > limits.maxConnectionsPerClient) {
      stats.reject('client-cap');
      refuse();
      return false;
    }
    perClient.set(ip, n);
    sockets.add(s);
    s.on('close', () => {
      sockets.delete(s);
      const left = (perClient.get(ip) ?? 1) - 1;
      if (left > 0) perClient.set(ip, left);
      else perClient.delete(ip);
    });
    return true;
  };
}

/**
 * Input the parser rejects gets a clear answer where it can still be given, then the socket goes;
 * nothing of it reaches other clients.
 */
function answerClientErrors(server: Server, { ctx, limits }: Serving): void {
  server.on('clientError', (err: NodeJS.ErrnoException, s: Duplex) => {
    const answer = clientErrorAnswer(err, limits);
    ctx.stats.reject(answer.reason);
    if (s.writable && !(s as Socket).destroyed)
      s.end(
        `HTTP/1.1 ${answer.status}\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(answer.text)}\r\n\r\n${answer.text}`,
      );
    s.destroy();
  });
}

/** The running gateway's handle: its address, live settings and users, and the drain. */
function runningGateway(
  server: Server,
  { ctx, state, agent, demand, raw }: Serving,
  at: {
    host: string;
    port: number;
    metrics: GatewayMetrics;
    socks?: { server: NetServer; host: string; port: number } | undefined;
  },
): RunningGateway {
  const { members, stats, sockets, log } = ctx;
  const urlHost = (h: string) => (isIP(h) === 6 ? `[${h}]` : h);
  let closing: Promise<void> | undefined;
  return {
    host: at.host,
    port: at.port,
    url: `http://${urlHost(at.host)}:${at.port}`,
    ...(at.socks
      ? {
          socks: {
            host: at.socks.host,
            port: at.socks.port,
            url: `socks5h://${urlHost(at.socks.host)}:${at.socks.port}`,
          },
        }
      : {}),
    members,
    metrics: at.metrics,
    stats,
    load: () => demand.load(),
    configure(s) {
      demand.configure(s);
      if (s.banStatuses) ctx.banStatuses = banSet(s.banStatuses);
      if (s.rotate) ctx.rotate = rotateSetting(s.rotate);
      members.configure(s);
    },
    setUsers(next) {
      guardUsers(at.host, next);
      if (at.socks) guardUsers(at.socks.host, next);
      state.users = next;
    },
    openConnections: () => sockets.size,
    rawHttp: raw?.counters,
    close(graceMs = 10_000) {
      closing ??= (async () => {
        state.draining = true;
        demand.close();
        const stopped = Promise.all([
          new Promise<void>((r) => server.close(() => r())),
          new Promise<void>((r) => (at.socks ? at.socks.server.close(() => r()) : r())),
        ]);
        server.closeIdleConnections();
        raw?.closeIdle();
        const deadline = setTimeout(() => {
          for (const s of sockets) s.destroy();
          server.closeAllConnections();
        }, graceMs);
        await stopped;
        while (sockets.size) await new Promise((r) => setTimeout(r, 20));
        clearTimeout(deadline);
        agent.destroy();
        raw?.close();
        at.metrics.unregister(stats);
        log.info({}, 'gateway: stopped');
      })();
      return closing;
    },
  };
}

const CLIENT_CAP_TEXT = 'too many connections from this address\n';

/** A client over its address's connection cap: 429, then the socket goes. */
function refuseClient(s: Socket): void {
  s.on('error', () => {});
  s.end(
    `HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ${CLIENT_CAP_TEXT.length}\r\n\r\n${CLIENT_CAP_TEXT}`,
  );
  s.destroySoon();
}

/** The answer to a request the parser refused (Node's codes), and the rejection label. */
function clientErrorAnswer(
  err: NodeJS.ErrnoException & { rawPacket?: Buffer },
  limits: Required<GatewayLimits>,
): { status: string; text: string; reason: string } {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    // The head overflowed before its first line ended: it is the URL that is too long.
    const firstLine = err.rawPacket?.indexOf('\r\n') ?? 0;
    if (firstLine < 0 || firstLine > limits.maxRequestLineBytes)
      return {
        status: '414 URI Too Long',
        text: `request URL longer than ${limits.maxRequestLineBytes} bytes\n`,
        reason: 'uri-too-long',
      };
    return {
      status: '431 Request Header Fields Too Large',
      text: `request head larger than ${limits.maxHeaderBytes} bytes\n`,
      reason: 'header-too-large',
    };
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_HEADERS_TIMEOUT')
    return {
      status: '408 Request Timeout',
      text: `request head not complete within ${limits.headersTimeoutMs} ms\n`,
      reason: 'header-timeout',
    };
  return { status: '400 Bad Request', text: 'malformed HTTP request\n', reason: 'bad-request' };
}

function listen(server: NetServer, port: number, host: string, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
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
    server.listen(port, host, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
