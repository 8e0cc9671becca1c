import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { computeErrors } from '../src/test/fake-errors.js';
import { rejection, request, type Setup, setup } from './helpers.js';

const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(async () => {
  await tracerProvider.shutdown();
  context.disable();
});

let s: Setup;
afterEach(async () => {
  exporter.reset();
  await s?.close();
});

describe('spans and log lines per Compute call', () => {
  it('puts one gcp.<method> span per request under the caller span, with the status on failures', async () => {
    s = await setup({}, { tracer: tracerProvider.getTracer('test') });
    const tracer = tracerProvider.getTracer('caller');
    const req = request();
    await tracer.startActiveSpan('reconcile', async (parent) => {
      const id = await s.provider.create(req);
      s.fake.failNext('instances.get', 1, { kind: 'error', error: computeErrors.backendError() });
      await rejection(s.provider.get(id));
      parent.end();
    });
    const spans = exporter.getFinishedSpans();
    const parent = spans.find((x) => x.name === 'reconcile')!;
    const children = spans.filter((x) => x.name.startsWith('gcp.'));
    expect(children.map((c) => c.name)).toEqual(['gcp.insertInstance', 'gcp.getInstance']);
    for (const c of children) {
      expect(c.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
      expect(c.spanContext().traceId).toBe(parent.spanContext().traceId);
    }
    expect(children[1]!.attributes['http.response.status_code']).toBe(503);
    expect(children[1]!.status.code).toBe(2);
  });

  it('writes one V1 "gcp api call" line per request, with the trace ids and the provider name', async () => {
    s = await setup({}, { tracer: tracerProvider.getTracer('test') });
    await s.provider.listByTag();
    const calls = s.lines.filter((l) => l.msg === 'gcp api call');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      level: 1,
      method: 'aggregatedListInstances',
      outcome: 'ok',
      provider: 'gcp-test',
      operation: 'listByTag',
    });
    expect(calls[0]!.traceId).toMatch(/^[0-9a-f]{32}$/);
  });
});
