import { createLogger, type LogLine } from '@egress-proxies/provider-utils';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeApiError } from './api-error.js';
import type { KubeBackend, PodView } from './backend.js';
import { observeBackend } from './observe.js';

const pod: PodView = { namespace: 'ns', name: 'p', podUid: 'u', labels: {} };

/** A seam stub: records calls, answers fixed values, fails readPod with a 503. */
function stub(): KubeBackend & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    server: 'https://api.example.invalid:6443',
    createPod: async (_s, ns) => {
      seen.push(`createPod ${ns}`);
      return pod;
    },
    readPod: async () => {
      seen.push('readPod');
      throw new KubeApiError({ status: 503, reason: 'ServiceUnavailable', message: 'etcd leader changed' });
    },
    deletePod: async () => {
      seen.push('deletePod');
    },
    listPods: async () => {
      seen.push('listPods');
      return { items: [pod] };
    },
    version: async () => {
      seen.push('version');
      return { gitVersion: 'v1.34.0' };
    },
    accessReview: async () => {
      seen.push('accessReview');
      return { allowed: true };
    },
  };
}

describe('observeBackend', () => {
  const exporter = new InMemorySpanExporter();
  const tp = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const cm = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    cm.enable();
    context.setGlobalContextManager(cm);
  });
  afterAll(async () => {
    cm.disable();
    context.disable();
    await tp.shutdown();
  });

  it('wraps every call in a span under the active one and logs one V1 line, never the Pod body', async () => {
    const lines: LogLine[] = [];
    const logger = createLogger({ verbosity: 2, sink: (l) => lines.push(l) });
    const raw = stub();
    const tracer = tp.getTracer('t');
    const b = observeBackend(raw, () => logger, { tracer });
    expect(b.server).toBe(raw.server);
    const parent = tracer.startSpan('op');
    await context.with(trace.setSpan(context.active(), parent), async () => {
      await b.createPod(undefined, 'ns', {
        metadata: { name: 'p' },
        spec: {
          containers: [{ name: 'c', env: [{ name: 'SQUID_CONF', value: 'http_port 3128 secret-ish' }] }],
        },
      });
      await b.listPods(undefined, { namespace: 'ns', labelSelector: 'a=b', limit: 5 });
      await expect(b.readPod(undefined, 'ns', 'p')).rejects.toThrow('etcd leader changed');
    });
    parent.end();
    expect(raw.seen).toEqual(['createPod ns', 'listPods', 'readPod']);
    const spans = exporter.getFinishedSpans().filter((s) => s.name.startsWith('kubernetes.'));
    expect(spans.map((s) => s.name)).toEqual([
      'kubernetes.createPod',
      'kubernetes.listPods',
      'kubernetes.readPod',
    ]);
    for (const s of spans) expect(s.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(spans[0]?.attributes).toMatchObject({ 'k8s.namespace.name': 'ns', 'k8s.pod.name': 'p' });
    expect(spans[2]?.attributes['http.response.status_code']).toBe(503);
    expect(spans[2]?.status.code).toBe(2);
    expect(lines.map((l) => [l.level, l.msg, l.call, l.outcome])).toEqual([
      [1, 'kubernetes api call', 'createPod', 'ok'],
      [1, 'kubernetes api call', 'listPods', 'ok'],
      [1, 'kubernetes api call', 'readPod', 'error'],
    ]);
    expect(lines[2]).toMatchObject({
      status: 503,
      reason: 'ServiceUnavailable',
      traceId: parent.spanContext().traceId,
    });
    expect(JSON.stringify(lines)).not.toContain('secret-ish');
  });
});
