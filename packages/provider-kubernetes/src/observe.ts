import type { Logger } from '@egress-proxies/contract';
import { traceFields, withSpan } from '@egress-proxies/provider-utils';
import type { Attributes, Tracer } from '@opentelemetry/api';
import { KubeApiError } from './api-error.js';
import { KUBE_CALLS, type KubeBackend } from './backend.js';

/** The span and log attributes of one seam call; never a Pod body (it holds the full config). */
function attributesOf(call: string, args: unknown[]): Attributes {
  const a: Attributes = { 'kubernetes.call': call };
  if (call === 'createPod') {
    a['k8s.namespace.name'] = String(args[1]);
    const meta = (args[2] as { metadata?: { name?: string } } | undefined)?.metadata;
    if (meta?.name) a['k8s.pod.name'] = meta.name;
  } else if (call === 'readPod' || call === 'deletePod') {
    a['k8s.namespace.name'] = String(args[1]);
    a['k8s.pod.name'] = String(args[2]);
  } else if (call === 'listPods' || call === 'accessReview') {
    const p = args[1] as { namespace?: string; verb?: string; resource?: string };
    if (p?.namespace) a['k8s.namespace.name'] = p.namespace;
    if (p?.verb) a['kubernetes.verb'] = p.verb;
    if (p?.resource) a['kubernetes.resource'] = p.resource;
  }
  return a;
}

/**
 * Wraps every seam call in a `kubernetes.<call>` span, parented on the caller's active span, and
 * writes one V1 `kubernetes api call` line per call (call, namespace, Pod, duration, outcome,
 * HTTP status and reason on failure, trace ids). Applied once where the adapter is built.
 */
export function observeBackend(
  backend: KubeBackend,
  getLogger: () => Logger,
  options: { tracer?: Tracer; provider?: string } = {},
): KubeBackend {
  const wrapped: Record<string, unknown> = {};
  for (const call of KUBE_CALLS) {
    const fn = backend[call] as (...a: unknown[]) => Promise<unknown>;
    wrapped[call] = (...args: unknown[]) => {
      const attrs = attributesOf(call, args);
      return withSpan(
        `kubernetes.${call}`,
        attrs,
        async (span) => {
          const started = performance.now();
          const logger = getLogger();
          const fields = () => ({
            call,
            ...(attrs['k8s.namespace.name'] !== undefined ? { namespace: attrs['k8s.namespace.name'] } : {}),
            ...(attrs['k8s.pod.name'] !== undefined ? { pod: attrs['k8s.pod.name'] } : {}),
            ms: Math.round(performance.now() - started),
            ...traceFields(),
          });
          try {
            const result = await fn.apply(backend, args);
            logger.log(1, 'kubernetes api call', { ...fields(), outcome: 'ok' });
            return result;
          } catch (err) {
            const api = KubeApiError.isInstance(err) ? err : undefined;
            if (api) span.setAttribute('http.response.status_code', api.status);
            logger.log(1, 'kubernetes api call', {
              ...fields(),
              outcome: 'error',
              ...(api ? { status: api.status, reason: api.reason } : {}),
              error: err instanceof Error ? err.message : String(err),
            });
            throw err;
          }
        },
        options.tracer ? { tracer: options.tracer } : {},
      );
    };
  }
  return Object.defineProperty(wrapped, 'server', {
    get: () => backend.server,
    enumerable: true,
  }) as unknown as KubeBackend;
}
