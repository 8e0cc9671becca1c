import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import {
  type ClusterPool,
  markCooledDown,
  type PoolRef,
  readClusterPool,
  readUsersSecret,
} from '../cluster/cluster-pool.js';
import { describeKubeError } from '../cluster/kube-errors.js';
import { type ReplicaPod, replicaPodFromEnv, writeLoadReport } from '../cluster/pool-load-lease.js';
import { createOperatorLogger } from '../domain/logger.js';
import type { OpLogger } from '../domain/op-logger.js';
import { textDestination } from '../domain/text-format.js';
import { loadProxyUsers, type ProxyUsers } from '../gateway/basic-auth.js';
import { CooldownMarkWriter, marksBehind } from '../gateway/cooldown-mark-writer.js';
import {
  GatewayConfigError,
  type GatewaySettings,
  type RunningGateway,
  startGateway,
} from '../gateway/gateway-server.js';
import { type GatewaySpec, specSettings, wakeSettings } from '../gateway/spec-settings.js';
import type { LoadReport } from '../pool/autoscale-plan.js';
import { FlagError } from './flag-error.js';
import type { GatewayFlags } from './gateway-flags.js';

const REFRESH_MS = 2000;

/** The flags where given, else the pool's spec.gateway, else the built-in defaults. */
export function effectiveSettings(flags: GatewayFlags, spec?: GatewaySpec): Required<GatewaySettings> {
  const { selection, rotate, sessionTtlMs, cooldownMs, banStatuses } = flags;
  return specSettings(spec, { selection, rotate, sessionTtlMs, cooldownMs, banStatuses });
}

function clusterApis(flags: GatewayFlags) {
  const kc = new KubeConfig();
  try {
    if (flags.kubeconfig) kc.loadFromFile(flags.kubeconfig);
    else kc.loadFromDefault();
  } catch (err) {
    throw new FlagError(`cannot load the kubeconfig: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { kc, api: kc.makeApiClient(CustomObjectsApi), core: kc.makeApiClient(CoreV1Api) };
}

/** Where the users come from: --users-dir (a mounted Secret), else the pool's usersSecret through the API. */
function usersSource(flags: GatewayFlags, core: CoreV1Api | undefined, pool: PoolRef | undefined) {
  return async (
    spec: ClusterPool['gateway'] | undefined,
    signal: AbortSignal,
  ): Promise<ProxyUsers | undefined> => {
    if (flags.usersDir) return loadProxyUsers(flags.usersDir);
    if (core && pool && spec?.usersSecret)
      return readUsersSecret(core, pool.namespace, spec.usersSecret, signal);
    return undefined;
  };
}

/**
 * `/readyz` is ready while some member is eligible, or while the pool wakes on demand (a Pod taken
 * out of the Service at zero members would never see the request that wakes the pool).
 */
function serveMetrics(
  gw: RunningGateway,
  at: { host: string; port: number },
  log: OpLogger,
  wakes: () => boolean,
) {
  const server = createServer((req, res) => {
    if (req.url === '/metrics')
      return void gw.metrics.registry
        .metrics()
        .then((text) => res.writeHead(200, { 'content-type': gw.metrics.registry.contentType }).end(text));
    if (req.url === '/healthz') return void res.writeHead(200).end('ok\n');
    if (req.url === '/readyz')
      return void res.writeHead(gw.members.eligible().length || wakes() ? 200 : 503).end();
    res.writeHead(404).end();
  });
  return new Promise<typeof server>((resolve) =>
    server.listen(at.port, at.host, () => {
      log.info({ port: (server.address() as AddressInfo).port }, 'gateway: metrics listening');
      resolve(server);
    }),
  );
}

/**
 * `egress-proxies gateway`: the pool endpoint as its own process (the chart's gateway
 * Deployment). With --pool, the pool is re-read every 2 s: its Ready members, its spec.gateway
 * (flags override it) and every member's cooled-down mark, so all replicas route alike; this
 * replica's own cooldowns are written back as marks. SIGTERM stops accepting and drains open
 * connections for --drain.
 */
export async function serveGateway(flags: GatewayFlags, stopped: Promise<void>): Promise<number> {
  const log = createOperatorLogger(
    flags.logLevel,
    flags.logFormat === 'text' ? textDestination() : undefined,
  );
  const pool = flags.pool;
  const poolKey = pool ? `${pool.namespace}/${pool.name}` : 'static';
  const cluster = pool ? clusterApis(flags) : undefined;
  const abort = new AbortController();
  const readPool = async () => {
    if (!cluster || !pool) return undefined;
    return readClusterPool(cluster.api, pool, abort.signal);
  };
  let first: ClusterPool | undefined;
  try {
    first = await readPool();
  } catch (err) {
    throw new Error(`cannot read ProxyPool ${poolKey}: ${describeKubeError(err)}`);
  }
  if (first && !first.gateway.enabled)
    throw new FlagError(`ProxyPool ${poolKey} has spec.gateway.enabled: false; it has no gateway to serve`);
  const readUsers = usersSource(flags, cluster?.core, pool);
  let gw: RunningGateway;
  // An autoscaled pool's load goes on this replica's Lease: every refresh, and at once when a request
  // waits. In the chart the Lease is owned by the replica's Pod, so it goes with the Pod.
  const pod = replicaPodFromEnv();
  const loads =
    cluster && pool
      ? loadReporter(
          cluster.kc,
          { ...pool, replica: pod?.name ?? hostname(), ...(pod ? { owner: pod } : {}) },
          () => ({ ...gw.load(), busy: Object.fromEntries(gw.members.busy()) }),
          log,
          abort.signal,
        )
      : undefined;
  let autoscaled = Boolean(first?.autoscale);
  // The marks tell the other replicas (and the pool controller, for `rotation.onBan`).
  const marks =
    cluster && pool
      ? new CooldownMarkWriter(
          (mark) => markCooledDown(cluster.api, pool, mark, gw.members.settings.cooldownMs, abort.signal),
          (mark, err) => {
            if (!abort.signal.aborted)
              log.warn(
                { member: mark.member, error: describeKubeError(err) },
                'gateway: cannot mark the member cooled down',
              );
          },
        )
      : undefined;
  try {
    const users = await readUsers(first?.gateway, abort.signal);
    gw = await startGateway({
      pool: poolKey,
      host: flags.listen.host,
      port: flags.listen.port ?? first?.gateway.port ?? 8080,
      ...(flags.socksListen ? { socks: flags.socksListen } : {}),
      ...(users ? { users } : {}),
      ...effectiveSettings(flags, first?.gateway),
      ...wakeSettings(first?.autoscale),
      onWake: () => {
        if (autoscaled) loads?.();
      },
      logger: log,
      // Its start and every later end: the mark ends where the cooldown in force does.
      onCooldown: (member, reason, until, origin) => {
        if (origin === 'local') marks?.record({ member, reason, until, at: Date.now() });
      },
    });
  } catch (err) {
    if (err instanceof GatewayConfigError) throw new FlagError(err.message);
    throw err;
  }
  const apply = (p: ClusterPool) => {
    gw.configure({ ...effectiveSettings(flags, p.gateway), ...wakeSettings(p.autoscale) });
    autoscaled = Boolean(p.autoscale);
    gw.members.setMembers(p.members);
    gw.members.applyMarks(p.marks);
    // A mark behind this replica's cooldown (its write failed, someone removed it) is written again.
    for (const c of marksBehind(gw.members.cooledDown(), p.marks)) marks?.record({ ...c, at: Date.now() });
  };
  if (flags.members) gw.members.setMembers(flags.members);
  if (first) apply(first);
  let warnedPort = false;
  const refresh = async () => {
    if (abort.signal.aborted) return;
    try {
      const p = await readPool();
      if (p) apply(p);
      if (autoscaled) loads?.();
      if (p && flags.listen.port === undefined && p.gateway.port !== gw.port && !warnedPort) {
        warnedPort = true;
        log.warn(
          { port: gw.port, wanted: p.gateway.port },
          'gateway: the pool asks for another port; restart to use it',
        );
      }
      if (flags.usersDir || p?.gateway.usersSecret) gw.setUsers(await readUsers(p?.gateway, abort.signal));
    } catch (err) {
      // The last members, settings and users stay: a brief API outage does not stop the traffic.
      if (!abort.signal.aborted)
        log.warn({ error: describeKubeError(err) }, 'gateway: cannot refresh the pool');
    }
  };
  const timer = setInterval(() => void refresh(), REFRESH_MS);
  const metrics = flags.metrics ? await serveMetrics(gw, flags.metrics, log, () => autoscaled) : undefined;
  await stopped;
  log.info({ drainMs: flags.drainMs, open: gw.openConnections() }, 'gateway: draining');
  abort.abort();
  clearInterval(timer);
  await gw.close(flags.drainMs);
  await new Promise<void>((r) => (metrics ? metrics.close(() => r()) : r()));
  return 0;
}

/**
 * Writes the gateway's load to its Lease. A call while a write is under way asks for one more
 * write after it, with the load read then: the write under way read the load before (a request
 * that just started waiting, the wake signal, is not in it). A failed write is logged: the pool
 * controller leaves a stale report out.
 */
function loadReporter(
  kc: KubeConfig,
  at: { namespace: string; name: string; replica: string; owner?: ReplicaPod },
  load: () => Omit<LoadReport, 'source'>,
  log: OpLogger,
  signal: AbortSignal,
): () => void {
  let writing = false;
  let again = false;
  const write = (): void => {
    if (signal.aborted) return;
    writing = true;
    again = false;
    const { namespace, name: pool, replica, owner } = at;
    writeLoadReport(kc, { namespace, pool, replica, ...(owner ? { owner } : {}) }, load(), signal)
      .catch((err) => {
        if (!signal.aborted) log.warn({ error: describeKubeError(err) }, 'gateway: cannot report the load');
      })
      .finally(() => {
        writing = false;
        if (again) write();
      });
  };
  return () => {
    if (writing) again = true;
    else write();
  };
}
