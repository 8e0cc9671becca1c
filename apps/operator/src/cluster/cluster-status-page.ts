import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { parseDuration } from '../api/duration.js';
import { GROUP, PROXY, VERSION } from '../api/group.js';
import type { ProxyObject } from '../api/proxy.js';
import { POOL_LABEL, PROXY_POOL, type ProxyPoolObject } from '../api/proxy-pool.js';
import { type OpLogger, silentOpLogger } from '../domain/op-logger.js';
import { COOLED_DOWN_ANNOTATION, parseCooldownMark } from '../pool/cooldown-mark.js';
import { bearerAuth } from '../status-page/bearer-auth.js';
import type { StatusPageData, StatusPageMember } from '../status-page/page-data.js';
import { type RunningStatusPage, startStatusPage } from '../status-page/status-page-server.js';
import { kubeCall } from './kube-call-options.js';
import { describeKubeError } from './kube-errors.js';
import { kubeTokenReviewer } from './kube-token-review.js';

export interface ClusterStatusPageOptions {
  kubeConfig: KubeConfig;
  /** One namespace's pools, or all when absent. */
  namespace?: string;
  host: string;
  port: number;
  /** How often the pools are re-read (default 2 s): every replica serves, leader or not. */
  pollMs?: number;
  logger?: OpLogger;
  /** How long a token's verdict is reused (default 10 s). */
  authCacheMs?: number;
  /** How often an open live stream is authorized again (default 10 s). */
  recheckStreamsMs?: number;
}

/**
 * The page's data from the pools' status, as the pool controller wrote it, and when each cooled
 * down member's cooldown ends (from its Proxy's mark; `namespace/name` to ms).
 */
export function clusterPageData(
  pools: readonly ProxyPoolObject[],
  now: number,
  cooledUntil: ReadonlyMap<string, number> = new Map(),
): StatusPageData {
  return {
    updatedAt: new Date(now).toISOString(),
    pools: pools.map((p) => {
      const st = p.status;
      const scaling = st?.conditions?.find((c) => c.type === 'Scaling');
      const a = p.spec.autoscale;
      return {
        pool: `${p.metadata.namespace}/${p.metadata.name}`,
        desired: p.spec.replicas ?? 0,
        ready: st?.ready ?? 0,
        ...(st?.gateway ? { gateway: st.gateway } : {}),
        ...(a && st?.autoscale
          ? {
              autoscale: {
                min: a.minReplicas ?? 0,
                max: a.maxReplicas ?? 0,
                activeConnections: st.autoscale.activeConnections ?? 0,
                requestsPerSecond: Number(st.autoscale.requestsPerSecond ?? 0),
                waiting: st.autoscale.waiting ?? 0,
                reason: scaling?.reason ?? '',
                message: scaling?.message ?? '',
              },
            }
          : {}),
        members: (st?.members ?? []).map((m): StatusPageMember => {
          const assigned = [m.assignedEgress?.ipv4, m.assignedEgress?.ipv6, m.assignedEgress?.ipv6Prefix]
            .filter(Boolean)
            .join(', ');
          const host = m.ip?.includes(':') ? `[${m.ip}]` : m.ip;
          const until = cooledUntil.get(`${p.metadata.namespace}/${m.name}`);
          return {
            name: m.name,
            ...(m.provider ? { provider: m.provider } : {}),
            ...(m.ip ? { address: m.port ? `${host}:${m.port}` : m.ip } : {}),
            ...(assigned ? { assignedEgress: assigned } : {}),
            ...(m.egressIP ? { seenEgress: m.egressIP } : {}),
            ready: m.ready,
            cooledDown: m.cooledDown === true,
            ...(m.cooledDown && until !== undefined && until > now
              ? { cooledDownUntil: new Date(until).toISOString() }
              : {}),
            ...(m.drainingSince ? { drainingSince: m.drainingSince } : {}),
          };
        }),
      };
    }),
  };
}

/** A pool's gateway cooldown, for marks that do not say when they end (a bad value: the default). */
function cooldownOf(p: ProxyPoolObject): number {
  try {
    return parseDuration(p.spec.gateway?.cooldown ?? '60s');
  } catch {
    return 60_000;
  }
}

/**
 * The status page in the cluster: the pools re-read every `pollMs`, served on their own port
 * behind Kubernetes authentication (kubeTokenReviewer). It never starts without it: there is no
 * open mode here.
 */
export async function startClusterStatusPage(opts: ClusterStatusPageOptions): Promise<RunningStatusPage> {
  const log = (opts.logger ?? silentOpLogger).child({ component: 'status-page' });
  const api = opts.kubeConfig.makeApiClient(CustomObjectsApi);
  const abort = new AbortController();
  const base = { group: GROUP, version: VERSION };
  const list = async <T>(plural: string, labelSelector?: string) => {
    const q = { ...base, plural, ...(labelSelector ? { labelSelector } : {}) };
    const call = kubeCall({ signal: abort.signal });
    const r = (await (opts.namespace
      ? api.listNamespacedCustomObject({ ...q, namespace: opts.namespace }, call)
      : api.listClusterCustomObject(q, call))) as { items: T[] };
    return r.items;
  };
  const read = async () => {
    const [pools, members] = await Promise.all([
      list<ProxyPoolObject>(PROXY_POOL.plural),
      // Pool members only (they carry the pool label): where a gateway's cooldown mark says until when.
      list<ProxyObject>(PROXY.plural, POOL_LABEL),
    ]);
    const cooldownMs = new Map(
      pools.map((p) => [`${p.metadata.namespace}/${p.metadata.name}`, cooldownOf(p)]),
    );
    const until = new Map<string, number>();
    for (const m of members) {
      const pool = `${m.metadata.namespace}/${m.metadata.labels?.[POOL_LABEL] ?? ''}`;
      const mark = parseCooldownMark(
        m.metadata.annotations?.[COOLED_DOWN_ANNOTATION],
        cooldownMs.get(pool) ?? 60_000,
      );
      if (mark) until.set(`${m.metadata.namespace}/${m.metadata.name}`, mark.until);
    }
    data = clusterPageData(pools, Date.now(), until);
  };
  let data: StatusPageData = clusterPageData([], Date.now());
  // The first read before serving: a page that starts empty would look like a fleet with no pools,
  // and rights that are missing are better found at start.
  try {
    await read();
  } catch (err) {
    throw new Error(`status page: cannot read the ProxyPools and their Proxies: ${describeKubeError(err)}`);
  }
  let warned = false;
  let reading = false;
  const timer = setInterval(() => {
    // A slow API server: one read at a time, the next tick tries again.
    if (reading) return;
    reading = true;
    read()
      .finally(() => {
        reading = false;
      })
      .then(
        () => {
          warned = false;
        },
        (err) => {
          // The last pools stay on the page; one warning per outage.
          if (!abort.signal.aborted && !warned)
            log.warn({ error: describeKubeError(err) }, 'status page: cannot read the pools');
          warned = true;
        },
      );
  }, opts.pollMs ?? 2000);
  timer.unref();
  const auth = bearerAuth({
    review: kubeTokenReviewer(opts.kubeConfig),
    ...(opts.authCacheMs !== undefined ? { cacheMs: opts.authCacheMs } : {}),
  });
  const page = await startStatusPage({
    host: opts.host,
    port: opts.port,
    snapshot: () => data,
    ...(opts.recheckStreamsMs !== undefined ? { recheckStreamsMs: opts.recheckStreamsMs } : {}),
    authenticate: async (headers, signal) => {
      const d = await auth(headers, signal);
      if (!d.ok) log.debug({ status: d.status }, 'status page: request refused');
      return d;
    },
  });
  log.info({ url: page.url }, 'status page listening');
  return {
    url: page.url,
    close: async () => {
      abort.abort();
      clearInterval(timer);
      await page.close();
    },
  };
}
