import { type Tracer, trace } from '@opentelemetry/api';

/** The operator's tracer; spans are no-ops until an SDK is registered (see tracing/sdk.ts). */
export const operatorTracer = (): Tracer => trace.getTracer('@egress-proxies/operator');
