import { createServer, type Server } from 'node:http';
import { type AddressInfo, isIP, type Server as NetServer, type Socket } from 'node:net';
import { silentOpLogger } from '../domain/op-logger.js';
import { answerClientErrors, clientAdmission, refuseClient } from './client-admission.js';
import { connectHandler, requestHandler, socksListener } from './gateway-handlers.js';
import { GatewayMetrics } from './gateway-metrics.js';
import {
  banSet,
  checkedLimits,
  type GatewayOptions,
  guardUsers,
  type RunningGateway,
  rotateSetting,
} from './gateway-options.js';
import { GatewayStats } from './gateway-stats.js';
import type { GatewayLimits } from './limits.js';
import { memberAgent } from './plain-http.js';
import { PoolDemand } from './pool-demand.js';
import { RawHttp } from './raw-http.js';
import { dataPathContext, observedMembers, type Serving, type ServingState } from './serving.js';

export { BAN_REPORT_HEADER, MEMBER_HEADER, MOVED_HEADER } from './gateway-context.js';
export {
  GatewayConfigError,
  type GatewayOptions,
  type GatewaySettings,
  ROTATES,
  type Rotate,
  type RunningGateway,
  type WakeSettings,
} from './gateway-options.js';

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
