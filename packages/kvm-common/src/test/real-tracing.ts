import type { ContextManager, Tracer } from '@opentelemetry/api';

/**
 * Where a suite's spans go. The test file builds it from an SDK (an in-memory exporter and an
 * async context manager); this package does not depend on the SDK.
 */
export interface RealTracing {
  tracer: Tracer;
  /** The exporter behind `tracer`, as the SDK's in-memory one is shaped. */
  exporter: {
    getFinishedSpans(): readonly { name: string; parentSpanContext?: { spanId: string } | undefined }[];
    reset(): void;
  };
  /** Installed globally for the suite, so the caller's span reaches the provider's calls. */
  contextManager: ContextManager;
}
