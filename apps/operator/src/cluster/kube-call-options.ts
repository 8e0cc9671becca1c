import { setHeaderMiddleware, setHeaderOptions } from '@kubernetes/client-node';

/** The per-call options every Kubernetes API call of the stores takes. */
export type KubeCallOptions = ReturnType<typeof setHeaderOptions>;

/** A Kubernetes API call that hangs longer than this is aborted (the caller retries with backoff). */
export const KUBE_CALL_TIMEOUT_MS = 30_000;

/**
 * Options for one API call: the caller's signal (or a timeout) on the request, and a
 * Content-Type for patches (the generated clients otherwise pick json-patch, which a merge-style
 * body is not). The User-Agent names the operator in the API server's audit log.
 */
export function kubeCall(
  opts: { signal?: AbortSignal; contentType?: string; timeoutMs?: number } = {},
): KubeCallOptions {
  const budget = AbortSignal.timeout(opts.timeoutMs ?? KUBE_CALL_TIMEOUT_MS);
  const signal = opts.signal ? AbortSignal.any([opts.signal, budget]) : budget;
  const agent = setHeaderMiddleware('User-Agent', 'egress-proxies-operator');
  const base = opts.contentType ? setHeaderOptions('Content-Type', opts.contentType) : { middleware: [] };
  return {
    ...base,
    middleware: [
      ...(base.middleware ?? []),
      {
        pre: (request) => {
          request.setSignal(signal);
          return agent.pre(request);
        },
        post: agent.post,
      },
    ],
    middlewareMergeStrategy: 'append',
  } as KubeCallOptions;
}
