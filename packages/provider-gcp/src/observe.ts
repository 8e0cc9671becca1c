import type { Logger } from '@egress-proxies/contract';
import { traceFields, withSpan } from '@egress-proxies/provider-utils';
import type { Tracer } from '@opentelemetry/api';
import type { ComputeApi } from './backend.js';
import { ComputeApiError } from './errors.js';

// Listed rather than read from Object.keys, so a class instance (methods on its prototype) works.
const SEAM_METHODS = [
  'getInstance',
  'insertInstance',
  'deleteInstance',
  'aggregatedListInstances',
  'getZoneOperation',
  'listZoneOperations',
  'getRegion',
  'getFirewall',
  'insertFirewall',
] as const satisfies readonly Exclude<keyof ComputeApi, 'close'>[];

/**
 * Wraps every seam call in a `gcp.<method>` span (parented on the caller's active span) and one
 * V1 `gcp api call` line with the method, duration and outcome. Arguments are not logged:
 * request bodies carry the user-data, which is a secret.
 */
export function observeComputeApi(
  api: ComputeApi,
  getLogger: () => Logger,
  options: { tracer?: Tracer } = {},
): ComputeApi {
  const wrapped: Record<string, unknown> = {};
  if (typeof api.close === 'function') wrapped.close = api.close.bind(api);
  for (const key of SEAM_METHODS) {
    const fn = api[key];
    if (typeof fn !== 'function') continue;
    wrapped[key] = (...args: unknown[]) =>
      withSpan(
        `gcp.${key}`,
        { 'gcp.method': key },
        async (span) => {
          const started = performance.now();
          const logger = getLogger();
          try {
            const result = await (fn as (...a: unknown[]) => Promise<unknown>).apply(api, args);
            logger.log(1, 'gcp api call', {
              method: key,
              ms: Math.round(performance.now() - started),
              outcome: 'ok',
              ...traceFields(),
            });
            return result;
          } catch (err) {
            const status = ComputeApiError.isInstance(err) ? err.status : undefined;
            if (status !== undefined) span.setAttribute('http.response.status_code', status);
            logger.log(1, 'gcp api call', {
              method: key,
              ms: Math.round(performance.now() - started),
              outcome: 'error',
              ...(status !== undefined ? { status } : {}),
              ...(ComputeApiError.isInstance(err) && err.reasons.length
                ? { reasons: err.reasons.join(',') }
                : {}),
              error: err instanceof Error ? err.message : String(err),
              ...traceFields(),
            });
            throw err;
          }
        },
        options.tracer ? { tracer: options.tracer } : {},
      );
  }
  return wrapped as unknown as ComputeApi;
}
