import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { ErrorCode, permanentError } from '@egress-proxies/contract';
import { raceAbort, throwIfAborted } from '@egress-proxies/provider-utils';
import type {
  AuthorizationV1Api,
  ConfigurationOptions,
  CoreV1Api,
  HttpLibrary,
  KubeConfig,
  ObservableMiddleware,
  RequestContext,
  V1Pod,
  VersionApi,
} from '@kubernetes/client-node';
import { apiErrorFromBody } from './api-error.js';
import type { KubeBackend, PodView } from './backend.js';
import { missingDefaultKubeconfig } from './default-kubeconfig.js';

/** The request a custom fetch receives (node-fetch's shape; `agent` carries the kubeconfig's TLS settings). */
export interface KubeFetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  agent?: HttpAgent | HttpsAgent;
}

/** What a custom fetch must return: the global `fetch`'s Response fits. */
export interface KubeFetchResponse {
  status: number;
  headers: { forEach(cb: (value: string, name: string) => void): void };
  text(): Promise<string>;
}

export type KubeFetch = (url: string, init: KubeFetchInit) => Promise<KubeFetchResponse>;

export interface ClientNodeOptions {
  /**
   * A loaded `KubeConfig`, or a kubeconfig document (YAML or JSON). Absent: the default loading
   * order of client-node (`KUBECONFIG`, `~/.kube/config`, then the in-cluster service account).
   */
  kubeConfig?: KubeConfig | string;
  /** Replaces client-node's HTTP stack, so calls can go through your own harness or proxy. */
  fetch?: KubeFetch;
  /** An agent for every request (keep-alive, a proxy agent); replaces the per-request one client-node builds from the kubeconfig TLS settings. */
  agent?: HttpAgent | HttpsAgent;
}

type ClientNode = typeof import('@kubernetes/client-node');

interface Clients {
  k8s: ClientNode;
  core: CoreV1Api;
  authz: AuthorizationV1Api;
  version: VersionApi;
  httpApi?: HttpLibrary;
}

/**
 * The production adapter: @kubernetes/client-node 1.x behind the seam. The module (about half a
 * second to import) is loaded on the first call, so building a provider never touches it or the
 * network. Every call carries the caller's AbortSignal down to the HTTP request, which node-fetch
 * then cancels; the authentication step (which may run an exec plugin) is raced against it too.
 */
export function createClientNodeBackend(
  options: ClientNodeOptions = {},
): KubeBackend & { ready(): Promise<void> } {
  let loading: Promise<Clients> | undefined;
  let server = serverOf(options.kubeConfig);

  const load = (): Promise<Clients> => {
    loading ??= (async () => {
      const k8s: ClientNode = await import('@kubernetes/client-node');
      let kc: KubeConfig;
      try {
        if (typeof options.kubeConfig === 'string') {
          kc = new k8s.KubeConfig();
          kc.loadFromString(options.kubeConfig);
        } else if (options.kubeConfig) {
          kc = options.kubeConfig;
        } else {
          const missing = missingDefaultKubeconfig();
          if (missing) throw new MissingKubeconfig(missing);
          kc = new k8s.KubeConfig();
          kc.loadFromDefault();
        }
      } catch (err) {
        if (err instanceof MissingKubeconfig)
          throw permanentError(err.message, { code: ErrorCode.InvalidConfig });
        // The parser's message can quote the document, which may hold a token: say only where.
        throw permanentError('the kubeconfig could not be loaded (not valid YAML or JSON)', {
          code: ErrorCode.InvalidConfig,
          details: { error: err instanceof Error ? err.name : 'unknown' },
        });
      }
      const cluster = kc.getCurrentCluster();
      if (!cluster) {
        throw permanentError('the kubeconfig has no current cluster (current-context unset or unknown)', {
          code: ErrorCode.InvalidConfig,
        });
      }
      server = cluster.server;
      return {
        k8s,
        core: kc.makeApiClient(k8s.CoreV1Api),
        authz: kc.makeApiClient(k8s.AuthorizationV1Api),
        version: kc.makeApiClient(k8s.VersionApi),
        ...(options.fetch ? { httpApi: fetchLibrary(k8s, options.fetch) } : {}),
      };
    })();
    // A failed load (bad kubeconfig) is retried on the next call rather than cached forever.
    loading.catch(() => {
      loading = undefined;
    });
    return loading;
  };

  // The object-style API hands these options to the Observable layer, so the middleware must
  // answer with client-node's own Observable (not a promise).
  const callOptions = (clients: Clients, signal: AbortSignal | undefined): ConfigurationOptions => {
    const { Observable } = clients.k8s;
    const mw: ObservableMiddleware = {
      pre: (ctx: RequestContext) => {
        if (signal) ctx.setSignal(signal);
        if (options.agent) ctx.setAgent(options.agent);
        return new Observable(Promise.resolve(ctx));
      },
      post: (r) => new Observable(Promise.resolve(r)),
    };
    return {
      middleware: [mw],
      middlewareMergeStrategy: 'append',
      ...(clients.httpApi ? { httpApi: clients.httpApi } : {}),
    } as ConfigurationOptions;
  };

  const run = async <T>(
    signal: AbortSignal | undefined,
    fn: (c: Clients, o: ConfigurationOptions) => Promise<T>,
  ) => {
    throwIfAborted(signal);
    const clients = await raceAbort(load(), signal);
    try {
      return await raceAbort(fn(clients, callOptions(clients, signal)), signal);
    } catch (err) {
      throw toApiError(err);
    }
  };

  return {
    get server() {
      return server;
    },
    async ready() {
      await load();
    },
    createPod: (signal, namespace, pod) =>
      run(signal, async (c, o) => podView(await c.core.createNamespacedPod({ namespace, body: pod }, o))),
    readPod: (signal, namespace, name) =>
      run(signal, async (c, o) => podView(await c.core.readNamespacedPod({ namespace, name }, o))),
    deletePod: (signal, namespace, name, podUid) =>
      run(signal, async (c, o) => {
        await c.core.deleteNamespacedPod({ namespace, name, body: { preconditions: { uid: podUid } } }, o);
      }),
    listPods: (signal, p) =>
      run(signal, async (c, o) => {
        const q = {
          labelSelector: p.labelSelector,
          limit: p.limit,
          ...(p.continueToken ? { _continue: p.continueToken } : {}),
        };
        const list = p.namespace
          ? await c.core.listNamespacedPod({ namespace: p.namespace, ...q }, o)
          : await c.core.listPodForAllNamespaces(q, o);
        const next = list.metadata?._continue;
        return { items: list.items.map(podView), ...(next ? { continueToken: next } : {}) };
      }),
    version: (signal) =>
      run(signal, async (c, o) => {
        const v = await c.version.getCode(undefined, o);
        return { gitVersion: v.gitVersion, ...(v.platform ? { platform: v.platform } : {}) };
      }),
    accessReview: (signal, p) =>
      run(signal, async (c, o) => {
        const r = await c.authz.createSelfSubjectAccessReview(
          {
            body: {
              apiVersion: 'authorization.k8s.io/v1',
              kind: 'SelfSubjectAccessReview',
              spec: {
                resourceAttributes: {
                  verb: p.verb,
                  resource: p.resource,
                  group: p.group ?? '',
                  ...(p.namespace ? { namespace: p.namespace } : {}),
                },
              },
            },
          },
          o,
        );
        return {
          allowed: r.status?.allowed === true,
          ...(r.status?.reason ? { reason: r.status.reason } : {}),
        };
      }),
  };
}

/** No kubeconfig anywhere client-node looks; its message says where it looked. */
class MissingKubeconfig extends Error {}

function serverOf(kc: ClientNodeOptions['kubeConfig']): string {
  if (kc && typeof kc !== 'string') return kc.getCurrentCluster()?.server ?? '';
  return '';
}

/** client-node's ApiException carries the status and the raw body text; anything else passes through. */
function toApiError(err: unknown): unknown {
  // client-node's own refusal of a plain-HTTP server: a kubeconfig problem, not the network.
  if (err instanceof Error && /HTTP protocol is not allowed/.test(err.message)) {
    return permanentError(`${err.message} (set insecure-skip-tls-verify for a plain-HTTP server)`, {
      code: ErrorCode.InvalidConfig,
    });
  }
  // Duck-typed rather than instanceof: the class may come from another copy of client-node.
  if (typeof err === 'object' && err !== null && 'body' in err && 'headers' in err) {
    const e = err as { code?: unknown; body?: unknown; headers?: Record<string, string> };
    if (typeof e.code === 'number') return apiErrorFromBody(e.code, e.body, e.headers);
  }
  return err;
}

function podView(pod: V1Pod): PodView {
  const m = pod.metadata ?? {};
  const view: PodView = {
    namespace: m.namespace ?? '',
    name: m.name ?? '',
    podUid: m.uid ?? '',
    labels: { ...(m.labels ?? {}) },
  };
  const created = toDate(m.creationTimestamp);
  if (created) view.createdAt = created;
  const deleting = toDate(m.deletionTimestamp);
  if (deleting) view.deletionTimestamp = deleting;
  if (pod.status?.phase) view.phase = pod.status.phase;
  if (pod.status?.podIP) view.podIP = pod.status.podIP;
  return view;
}

function toDate(v: unknown): Date | undefined {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? undefined : v;
  if (typeof v === 'string') {
    const d = new Date(v);
    return Number.isNaN(d.getTime()) ? undefined : d;
  }
  return undefined;
}

function fetchLibrary(k8s: ClientNode, fetchFn: KubeFetch): HttpLibrary {
  return {
    send(req) {
      const body = req.getBody();
      const signal = req.getSignal();
      const agent = req.getAgent();
      const init: KubeFetchInit = {
        method: String(req.getHttpMethod()),
        headers: { ...req.getHeaders() },
        ...(typeof body === 'string' ? { body } : {}),
        ...(signal ? { signal } : {}),
        ...(agent ? { agent } : {}),
      };
      const done = fetchFn(req.getUrl(), init).then(async (res) => {
        const headers: Record<string, string> = {};
        res.headers.forEach((value, name) => {
          headers[name] = value;
        });
        const text = await res.text();
        return new k8s.ResponseContext(res.status, headers, {
          text: async () => text,
          binary: async () => Buffer.from(text),
        });
      });
      return new k8s.Observable(done);
    },
  };
}
