import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sleep } from './abort.js';
import { traceFields, withSpan } from './tracing.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});
beforeEach(() => exporter.reset());

const byName = (name: string) => {
  const s = exporter.getFinishedSpans().find((x) => x.name === name);
  if (!s) throw new Error(`no finished span ${name}`);
  return s;
};

describe('withSpan', () => {
  it('parents on the active span, across awaits, and ends every span', async () => {
    const result = await withSpan('provider.create', { 'provider.name': 'kvm2-home' }, async () => {
      await sleep(1);
      await withSpan('kvm2.DomainDefineXML', { 'kvm2.host': 'nas1' }, async () => {
        await sleep(1);
      });
      return 'hosts/nas1/domains/proxy-1';
    });
    expect(result).toBe('hosts/nas1/domains/proxy-1');
    const parent = byName('provider.create');
    const child = byName('kvm2.DomainDefineXML');
    expect(parent.parentSpanContext).toBeUndefined();
    expect(child.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(child.spanContext().traceId).toBe(parent.spanContext().traceId);
    expect(parent.attributes).toMatchObject({ 'provider.name': 'kvm2-home' });
    expect(child.attributes).toMatchObject({ 'kvm2.host': 'nas1' });
    expect(parent.ended && child.ended).toBe(true);
  });

  it('sets ERROR status, records the exception, rethrows and ends the span', async () => {
    const err = new Error('pool default is not running');
    await expect(withSpan('provider.get', {}, () => Promise.reject(err))).rejects.toBe(err);
    const s = byName('provider.get');
    expect(s.ended).toBe(true);
    expect(s.status).toEqual({ code: SpanStatusCode.ERROR, message: 'pool default is not running' });
    expect(s.events.map((e) => e.name)).toContain('exception');
  });

  it('uses an explicit tracer when given, and ends the span after a sync fn', async () => {
    await withSpan('explicit', {}, () => 1, { tracer: provider.getTracer('t') });
    expect(byName('explicit').ended).toBe(true);
  });

  it('traceFields reports the active span ids inside and nothing outside', async () => {
    expect(traceFields()).toEqual({});
    const inside = await withSpan('with-ids', {}, () => traceFields());
    const s = byName('with-ids');
    expect(inside).toEqual({ traceId: s.spanContext().traceId, spanId: s.spanContext().spanId });
  });
});
