import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CustomObjectsApi, KubeConfig, PatchStrategy } from '@kubernetes/client-node';
import { GROUP, PROXY, VERSION } from '../api/group.js';
import type { ProxyObject } from '../api/proxy.js';
import { POOL_LABEL } from '../api/proxy-pool.js';
import { FlagError } from '../cli/flag-error.js';
import { createOperatorLogger } from '../log/logger.js';
import { COOLED_DOWN_ANNOTATION } from '../pool/kube-pool-controller.js';
import { kubeCall } from '../store/kube-call-options.js';
import { loadProxyUsers } from './basic-auth.js';
import type { GatewayFlags } from './gateway-flags.js';
import { GatewayConfigError, type RunningGateway, startGateway } from './gateway-server.js';
import type { GatewayMember } from './member-table.js';

/** The Ready members of a pool as the cluster shows them: Proxies with the pool's label. */
async function poolMembers(
  api: CustomObjectsApi,
  pool: { namespace: string; name: string },
  signal: AbortSignal,
) {
  const r = (await api.listNamespacedCustomObject(
    {
      group: GROUP,
      version: VERSION,
      namespace: pool.namespace,
      plural: PROXY.plural,
      labelSelector: `${POOL_LABEL}=${pool.name}`,
    },
    kubeCall({ signal }),
  )) as { items: ProxyObject[] };
  return r.items
    .filter((p) => p.status?.phase === 'Ready' && p.status.ip && !p.metadata.deletionTimestamp)
    .map(
      (p): GatewayMember => ({
        name: p.metadata.name,
        host: p.status?.ip as string,
        port: p.spec.port ?? 3128,
      }),
    );
}

/**
 * `egress-proxies gateway`: the pool endpoint as its own process (the chart's gateway
 * Deployment). Members come from the cluster (a ProxyPool's Ready Proxies, re-read every 2 s) or
 * from --members; SIGTERM stops accepting and drains open connections for --drain.
 */
export async function gatewayCommand(flags: GatewayFlags, stopped: Promise<void>): Promise<number> {
  const log = createOperatorLogger(flags.logLevel);
  const users = flags.usersDir ? loadProxyUsers(flags.usersDir) : undefined;
  const poolKey = flags.pool ? `${flags.pool.namespace}/${flags.pool.name}` : 'static';
  let api: CustomObjectsApi | undefined;
  if (flags.pool) {
    const kc = new KubeConfig();
    try {
      if (flags.kubeconfig) kc.loadFromFile(flags.kubeconfig);
      else kc.loadFromDefault();
    } catch (err) {
      throw new FlagError(`cannot load the kubeconfig: ${err instanceof Error ? err.message : String(err)}`);
    }
    api = kc.makeApiClient(CustomObjectsApi);
  }
  const abort = new AbortController();
  let gw: RunningGateway;
  try {
    gw = await startGateway({
      pool: poolKey,
      host: flags.listen.host,
      port: flags.listen.port,
      ...(users ? { users } : {}),
      selection: flags.selection,
      sessionTtlMs: flags.sessionTtlMs,
      cooldownMs: flags.cooldownMs,
      logger: log,
      // The pool controller reads this mark for `rotation.onBan: Recycle`.
      onCooldown: (member, reason) => {
        if (!api || !flags.pool) return;
        void api
          .patchNamespacedCustomObject(
            {
              group: GROUP,
              version: VERSION,
              namespace: flags.pool.namespace,
              plural: PROXY.plural,
              name: member,
              body: {
                metadata: {
                  annotations: { [COOLED_DOWN_ANNOTATION]: `${new Date().toISOString()} ${reason}` },
                },
              },
            },
            kubeCall({ contentType: PatchStrategy.MergePatch }),
          )
          .catch((err) =>
            log.warn({ member, error: String(err) }, 'gateway: cannot mark the member cooled down'),
          );
      },
    });
  } catch (err) {
    if (err instanceof GatewayConfigError) throw new FlagError(err.message);
    throw err;
  }
  if (flags.members) gw.members.setMembers(flags.members);
  const refresh = async () => {
    if (!api || !flags.pool || abort.signal.aborted) return;
    try {
      gw.members.setMembers(await poolMembers(api, flags.pool, abort.signal));
    } catch (err) {
      if (!abort.signal.aborted) log.warn({ error: String(err) }, 'gateway: cannot read the pool members');
    }
  };
  await refresh();
  const timer = setInterval(() => void refresh(), 2000);
  const metrics = flags.metrics
    ? createServer((req, res) => {
        if (req.url === '/metrics')
          return void gw.metrics.registry
            .metrics()
            .then((text) =>
              res.writeHead(200, { 'content-type': gw.metrics.registry.contentType }).end(text),
            );
        if (req.url === '/healthz') return void res.writeHead(200).end('ok\n');
        if (req.url === '/readyz') return void res.writeHead(gw.members.eligible().length ? 200 : 503).end();
        res.writeHead(404).end();
      })
    : undefined;
  if (metrics && flags.metrics) {
    const m = flags.metrics;
    await new Promise<void>((r) => metrics.listen(m.port, m.host, () => r()));
    log.info({ port: (metrics.address() as AddressInfo).port }, 'gateway: metrics listening');
  }
  await stopped;
  log.info({ drainMs: flags.drainMs, open: gw.openConnections() }, 'gateway: draining');
  abort.abort();
  clearInterval(timer);
  await gw.close(flags.drainMs);
  await new Promise<void>((r) => (metrics ? metrics.close(() => r()) : r()));
  return 0;
}
