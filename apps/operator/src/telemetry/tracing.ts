import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export interface TracingOptions {
  /** The OTLP/HTTP traces endpoint (`http://collector:4318/v1/traces`); tracing is off without one and without `exporter`. */
  endpoint?: string;
  /** An exporter to use instead of OTLP (tests use an in-memory one). */
  exporter?: SpanExporter;
  /** Processors to add as they are (tests use a simple one to see spans at once). */
  processors?: SpanProcessor[];
  serviceName?: string;
}

/**
 * Registers the OpenTelemetry SDK globally (context manager, propagator, provider) so the
 * operator's spans and every provider's child spans, which use only the API, are recorded.
 * Returns a shutdown that flushes; undefined when tracing is not configured.
 */
export function startTracing(opts: TracingOptions): { shutdown(): Promise<void> } | undefined {
  const processors: SpanProcessor[] = [...(opts.processors ?? [])];
  const exporter =
    opts.exporter ?? (opts.endpoint ? new OTLPTraceExporter({ url: opts.endpoint }) : undefined);
  if (exporter) processors.push(new BatchSpanProcessor(exporter));
  if (processors.length === 0) return undefined;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': opts.serviceName ?? 'egress-proxies-operator' }),
    spanProcessors: processors,
  });
  provider.register();
  return { shutdown: () => provider.shutdown() };
}
