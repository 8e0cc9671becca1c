import type * as OpenTelemetryApi from '@opentelemetry/api';
import type { Attributes, Span, Tracer } from '@opentelemetry/api';

let api: typeof OpenTelemetryApi | undefined;

/**
 * The OpenTelemetry API (a peer dependency), loaded on first use so that importing a provider
 * does not load it. Its state lives on `globalThis`, so this copy sees the tracer provider and
 * context manager an application registered through its own import.
 */
export function openTelemetry(): typeof OpenTelemetryApi {
  const { createRequire } = process.getBuiltinModule('node:module');
  api ??= createRequire(import.meta.url)('@opentelemetry/api') as typeof OpenTelemetryApi;
  return api;
}

/**
 * Runs `fn` inside a span named `name`, parented on the active context, and ends it. A thrown
 * error is recorded (message only: errors here never carry secrets) and the status set to ERROR.
 * Libraries use the API only; without an SDK registered this costs a no-op span.
 */
export async function withSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T> | T,
  options: { tracer?: Tracer } = {},
): Promise<T> {
  const { context, SpanStatusCode, trace } = openTelemetry();
  const tracer = options.tracer ?? trace.getTracer('@egress-proxies');
  const span = tracer.startSpan(name, { attributes }, context.active());
  try {
    return await context.with(trace.setSpan(context.active(), span), () => fn(span));
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    span.recordException({ name: e.name, message: e.message });
    span.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
    throw err;
  } finally {
    span.end();
  }
}

/** The active span's trace and span ids, for log lines; empty when there is none. */
export function traceFields(): { traceId?: string; spanId?: string } {
  const { context, trace } = openTelemetry();
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const c = span.spanContext();
  return trace.isSpanContextValid(c) ? { traceId: c.traceId, spanId: c.spanId } : {};
}
