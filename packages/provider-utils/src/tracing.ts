import type * as OpenTelemetryApi from '@opentelemetry/api';
import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import { requireOpenTelemetry } from './otel-loader.js';

// undefined: not tried yet; null: not installed where this package can resolve it.
let api: typeof OpenTelemetryApi | null | undefined;

// Where every copy of the API (major 1) keeps its registered tracer provider, context manager,
// propagator and diag logger. Absent until an application registers one of them: until then no
// span can be active or recorded, so there is nothing to load the API for.
const GLOBAL_KEY = Symbol.for('opentelemetry.js.api.1');
const registered = () => (globalThis as Record<symbol, unknown>)[GLOBAL_KEY] !== undefined;

/**
 * The OpenTelemetry API (an optional peer dependency), loaded on first use so that importing a
 * provider does not load it; `undefined` when it is not installed, and then the helpers here make
 * no spans and the calls they wrap still run. Its state lives on `globalThis`, so this copy sees
 * the tracer provider and context manager an application registered through its own import.
 */
export function openTelemetry(): typeof OpenTelemetryApi | undefined {
  if (api === undefined) {
    try {
      api = requireOpenTelemetry();
    } catch (err) {
      // Only its own absence is tolerated: a broken install (a file of it missing) still says so.
      const e = err as { code?: unknown; message?: unknown };
      const absent = e.code === 'MODULE_NOT_FOUND' && String(e.message).includes("'@opentelemetry/api'");
      if (!absent) throw err;
      api = null;
    }
  }
  return api ?? undefined;
}

/**
 * The API only when an application has registered OpenTelemetry (and it is installed): what a
 * backend client asks before looking for a parent span, so that untraced calls load nothing.
 */
export function activeOpenTelemetry(): typeof OpenTelemetryApi | undefined {
  return registered() ? openTelemetry() : undefined;
}

/** A span that records nothing: what `fn` gets when there is no API or nothing registered. */
const nonRecordingSpan: Span = {
  spanContext: () => ({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 }),
  setAttribute: () => nonRecordingSpan,
  setAttributes: () => nonRecordingSpan,
  addEvent: () => nonRecordingSpan,
  addLink: () => nonRecordingSpan,
  addLinks: () => nonRecordingSpan,
  setStatus: () => nonRecordingSpan,
  updateName: () => nonRecordingSpan,
  end: () => {},
  isRecording: () => false,
  recordException: () => {},
};

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
  // Without a registered tracer provider (or one given) the span would be a no-op anyway.
  const otel = options.tracer || registered() ? openTelemetry() : undefined;
  if (!otel) return fn(nonRecordingSpan);
  const { context, SpanStatusCode, trace } = otel;
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
  // No context manager registered: no span can be active (this runs on every provider call).
  const otel = activeOpenTelemetry();
  if (!otel) return {};
  const { context, trace } = otel;
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const c = span.spanContext();
  return trace.isSpanContextValid(c) ? { traceId: c.traceId, spanId: c.spanId } : {};
}
