import type * as OpenTelemetryApi from '@opentelemetry/api';

/**
 * Requires the OpenTelemetry API (an optional peer dependency) from where this package is
 * installed. Its own module so that a test can stand in for a machine where it is absent.
 */
export function requireOpenTelemetry(): typeof OpenTelemetryApi {
  const { createRequire } = process.getBuiltinModule('node:module');
  return createRequire(import.meta.url)('@opentelemetry/api') as typeof OpenTelemetryApi;
}
