import { Readable } from 'node:stream';
import { createLogger, type LogLine } from '@egress-proxies/provider-utils';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKEND_METHODS, type KvmBackend } from './backend.js';
import { OPTIONS_INDEX, observeBackend } from './observe.js';
import { FakeLibvirt } from './test/fake-libvirt.js';

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer(
  't',
);

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => {
  context.disable();
});

async function connection() {
  const fake = new FakeLibvirt({ hosts: [{ name: 'h1', pool: 'default' }] });
  const raw = await fake
    .dialer()
    .dial({ name: 'h1', address: 'h1:22', user: 'u', socket: '/s', pool: 'default', bridge: 'br0' });
  return { fake, b: observeBackend(raw, { host: 'h1', spanPrefix: 'kvm2', tracer }) };
}

function capture(verbosity: number) {
  const lines: LogLine[] = [];
  return { logger: createLogger({ verbosity, sink: (l) => lines.push(l) }), lines };
}

describe('observe', () => {
  it('instruments every seam method: one span and one line each, by reflection', async () => {
    const { b } = await connection();
    for (const method of BACKEND_METHODS) {
      exporter.reset();
      const { logger, lines } = capture(1);
      const args: unknown[] = [];
      args[OPTIONS_INDEX[method]] = { logger };
      // Argument values do not matter: a failed call must be spanned and logged too.
      await (b[method] as (...a: unknown[]) => Promise<unknown>)(...args).catch(() => {});
      const spans = exporter.getFinishedSpans().map((s) => s.name);
      const pascal = method[0]!.toUpperCase() + method.slice(1);
      expect(spans, method).toEqual([`kvm2.${pascal}`]);
      expect(
        lines.filter((l) => l.msg === 'libvirt call'),
        method,
      ).toHaveLength(1);
      expect(lines[0]).toMatchObject({ method: pascal, host: 'h1' });
    }
  });

  it('spans are children of the caller span and carry identifiers', async () => {
    const { b } = await connection();
    exporter.reset();
    const parent = tracer.startSpan('provider.get');
    await context.with(trace.setSpan(context.active(), parent), () =>
      b.domainLookupByName('proxy-x', {}).catch(() => {}),
    );
    parent.end();
    const [span] = exporter.getFinishedSpans().filter((s) => s.name === 'kvm2.DomainLookupByName');
    expect(span?.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(span?.attributes).toMatchObject({
      'kvm2.host': 'h1',
      'kvm2.domain': 'proxy-x',
      'kvm2.libvirt_code': 42,
    });
  });

  it('V1 has no XML; V2 carries it; upload bodies never appear', async () => {
    const { b } = await connection();
    const pool = await b.storagePoolLookupByName('default');
    const xml = '<volume><name>proxy-a-seed.iso</name><capacity unit="bytes">12</capacity></volume>';
    const v1 = capture(1);
    await b.storageVolCreateXML(pool, xml, { logger: v1.logger });
    expect(JSON.stringify(v1.lines)).not.toContain('<volume>');
    const v2 = capture(2);
    const vol = await b.storageVolLookupByName(pool, 'proxy-a-seed.iso', { logger: v2.logger });
    await b.storageVolGetXMLDesc(vol, { logger: v2.logger });
    expect(JSON.stringify(v2.lines)).toContain('<volume');
    const body = 'SECRET-BODY!';
    const up = capture(2);
    await b.storageVolUpload(vol, Readable.from([Buffer.from(body)]), body.length, { logger: up.logger });
    expect(JSON.stringify(up.lines)).not.toContain('SECRET-BODY');
    expect(up.lines[0]).toMatchObject({ method: 'StorageVolUpload', length: body.length });
  });

  it('a V0 logger gets nothing', async () => {
    const { b } = await connection();
    const { logger, lines } = capture(0);
    await b.connectGetHostname({ logger });
    expect(lines).toEqual([]);
  });
});

export type { KvmBackend };
