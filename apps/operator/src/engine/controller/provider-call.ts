import { type CallOptions, type Logger, ProviderError } from '@egress-proxies/contract';
import { traceFields } from '@egress-proxies/provider-utils';
import { SpanStatusCode } from '@opentelemetry/api';
import type { OperatorMetrics } from '../../telemetry/metrics.js';
import { operatorTracer } from '../../telemetry/tracer.js';
import type { ProviderCall, ProviderHandle } from '../reconcile/types.js';

/** The error class of a failed call, for the errors metric. */
export function errorClass(err: unknown): string {
  return ProviderError.isInstance(err) ? err.kind : 'Unclassified';
}

/**
 * Wraps every provider call in a `provider.<op>` span (the provider's own child spans nest under
 * it, since it is the active context during the call), records latency and errors by class, and
 * hands the provider a logger carrying the trace ids.
 */
export function instrumentedCall(deps: { metrics?: OperatorMetrics; logger?: Logger }): ProviderCall {
  return async <T>(
    handle: ProviderHandle,
    op: string,
    fn: (opts: CallOptions) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> => {
    const started = performance.now();
    return operatorTracer().startActiveSpan(
      `provider.${op}`,
      {
        attributes: { 'provider.name': handle.name, 'provider.type': handle.type, 'provider.operation': op },
      },
      async (span) => {
        try {
          const logger = deps.logger?.child({ ...traceFields() });
          const result = await fn({ ...(signal ? { signal } : {}), ...(logger ? { logger } : {}) });
          span.setStatus({ code: SpanStatusCode.OK });
          return result;
        } catch (err) {
          const cls = errorClass(err);
          deps.metrics?.providerErrors.inc({ provider: handle.name, operation: op, class: cls });
          span.setAttribute('error.class', cls);
          const message = err instanceof Error ? err.message : String(err);
          span.recordException({ name: err instanceof Error ? err.name : 'Error', message });
          span.setStatus({ code: SpanStatusCode.ERROR, message });
          throw err;
        } finally {
          deps.metrics?.providerLatency.observe(
            { provider: handle.name, operation: op },
            (performance.now() - started) / 1000,
          );
          span.end();
        }
      },
    );
  };
}
