import { type Attributes, context, type Span, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';

const defaultTracer = () => trace.getTracer('@egress-proxies');

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
  const tracer = options.tracer ?? defaultTracer();
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
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const c = span.spanContext();
  return trace.isSpanContextValid(c) ? { traceId: c.traceId, spanId: c.spanId } : {};
}
