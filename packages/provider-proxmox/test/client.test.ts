import { writeFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { instanceName, isPermanent, type ProviderError } from '@egress-proxies/contract';
import { createLogger, type LogLine } from '@egress-proxies/provider-utils';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpBackend } from '../src/client.js';
import { type FakeSetup, mintFakeTls, startFakeSetup } from '../src/test/index.js';

let s: FakeSetup;
let otherCa: string;
beforeAll(async () => {
  s = await startFakeSetup();
  otherCa = mintFakeTls().caPem;
});
afterAll(async () => {
  await s.close();
});

const req = (n: string) => ({
  name: instanceName('client', n),
  namespace: 'client',
  uid: `uid-${n}`,
  port: 3128,
  placement: { machineType: 'small', image: 'debian' },
});

function capture() {
  const lines: LogLine[] = [];
  return { lines, logger: createLogger({ verbosity: 2, sink: (l) => lines.push(l) }) };
}

describe('token handling', () => {
  it('the secret never appears in a log line or an error, even on a 401', async () => {
    const token = `${s.fake.addToken('ops@pve!leaky')}`;
    const secret = token.slice(token.lastIndexOf('=') + 1);
    const file = `${s.dir}/leaky-token`;
    writeFileSync(file, token);
    const { lines, logger } = capture();
    const p = s.provider({ tokenFile: file }, { logger });
    const id = await p.create(req('leak'));
    await p.get(id);
    s.fake.revokeToken('ops@pve!leaky');
    const err = (await p.get(id).catch((e) => e)) as ProviderError;
    expect(isPermanent(err)).toBe(true);
    expect(err.code).toBe('AUTH_FAILED');
    const all = [
      JSON.stringify(lines),
      err.message,
      inspect(err, { depth: 10 }),
      JSON.stringify(err),
      String(err.cause),
    ].join('\n');
    expect(lines.length).toBeGreaterThan(5);
    expect(all).not.toContain(secret);
    expect(all).toContain('401');
  });

  it('a malformed token file is Permanent and its content is not quoted', async () => {
    const file = `${s.dir}/bad-token`;
    writeFileSync(file, 'not-a-token-but-secretish-42');
    const p = s.provider({ tokenFile: file });
    const err = (await p.listByTag().catch((e) => e)) as ProviderError;
    expect(isPermanent(err)).toBe(true);
    expect(err.message).not.toContain('secretish');
  });

  it('a missing token file is Transient CREDENTIALS_UNAVAILABLE', async () => {
    const p = s.provider({ tokenFile: `${s.dir}/nope` });
    const err = (await p.listByTag().catch((e) => e)) as ProviderError;
    expect([err.kind, err.code]).toEqual(['Transient', 'CREDENTIALS_UNAVAILABLE']);
  });

  it('the token file is re-read on every request (rotation without restart)', async () => {
    const file = `${s.dir}/rotating`;
    writeFileSync(file, s.fake.addToken('ops@pve!r1'));
    const p = s.provider({ tokenFile: file });
    await p.listByTag();
    writeFileSync(file, s.fake.addToken('ops@pve!r2'));
    s.fake.revokeToken('ops@pve!r1');
    await p.listByTag();
    expect(s.fake.calls.at(-1)?.tokenId).toBe('ops@pve!r2');
  });
});

describe('TLS', () => {
  it('a server certificate from another CA is Permanent CERTIFICATE_INVALID', async () => {
    const file = `${s.dir}/other-ca.pem`;
    writeFileSync(file, otherCa);
    const p = s.provider({ caFile: file });
    const err = (await p.listByTag().catch((e) => e)) as ProviderError;
    expect([err.kind, err.code]).toEqual(['Permanent', 'CERTIFICATE_INVALID']);
  });

  it('without a caFile the system roots refuse the throwaway CA: Permanent', async () => {
    const p = s.provider({ caFile: undefined });
    const err = (await p.listByTag().catch((e) => e)) as ProviderError;
    expect([err.kind, err.code]).toEqual(['Permanent', 'CERTIFICATE_INVALID']);
  });

  it('insecureSkipTLSVerify connects anyway', async () => {
    const p = s.provider({ caFile: undefined, insecureSkipTLSVerify: true });
    await expect(p.listByTag()).resolves.toBeInstanceOf(Array);
  });

  it('the CA file is re-read when it changes', async () => {
    const file = `${s.dir}/rotating-ca.pem`;
    writeFileSync(file, otherCa);
    const p = s.provider({ caFile: file });
    await expect(p.listByTag()).rejects.toSatisfy(isPermanent);
    writeFileSync(file, `${s.fake.tls.caPem}\n`);
    await expect(p.listByTag()).resolves.toBeInstanceOf(Array);
  });
});

describe('cancellation and timeouts', () => {
  it('an aborted request ends only itself; the pool keeps serving', async () => {
    const p = s.provider();
    const id = await p.create(req('cancel'));
    const vmid = id.split('/')[1];
    s.fake.inject({
      method: 'GET',
      path: `/nodes/pve1/qemu/${vmid}/status/current`,
      status: 200,
      hang: true,
      times: 1,
    });
    const served = s.fake.injected.length;
    const ac = new AbortController();
    const hung = p.get(id, { signal: ac.signal });
    const others = Promise.all([p.listByTag(), p.listByTag(), p.listByTag()]);
    await expect(others).resolves.toHaveLength(3);
    // Abort only once the hanging answer has been reached: aborted earlier (a loaded machine), the
    // get would end before it and leave the one-shot hang for the get below.
    while (s.fake.injected.length === served) await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    const err = (await hung.catch((e) => e)) as ProviderError;
    expect([err.kind, err.code]).toEqual(['Transient', 'ABORTED']);
    await expect(p.get(id)).resolves.toMatchObject({ state: 'Running' });
  });

  it('a request over requestTimeoutSeconds is Transient TIMEOUT', async () => {
    const p = s.provider({ requestTimeoutSeconds: 1 });
    s.fake.inject({ method: 'GET', path: '/cluster/resources', status: 200, delayMs: 1500, times: 1 });
    const err = (await p.listByTag().catch((e) => e)) as ProviderError;
    expect([err.kind, err.code]).toEqual(['Transient', 'TIMEOUT']);
  });
});

describe('error formats on the wire', () => {
  it('reads the text from the body (>= 8.3) and from the reason phrase (before)', async () => {
    const b = new HttpBackend({
      url: s.fake.url,
      tokenFile: s.tokenFile,
      caFile: s.caFile,
      requestTimeoutMs: 5000,
    });
    const signal = new AbortController().signal;
    for (const fmt of ['current', 'pre-8.3'] as const) {
      s.fake.errorFormat = fmt;
      const e = await b.vmConfig(signal, 'pve1', 424242).catch((x) => x);
      expect(e.status).toBe(500);
      expect(e.text.trim()).toBe("Configuration file 'nodes/pve1/qemu-server/424242.conf' does not exist");
    }
    s.fake.errorFormat = 'current';
    await b.close();
  });
});

describe('tracing', () => {
  it('each request is an HTTP client span under the caller span, and none without one', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const cm = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(cm);
    try {
      const tracer = provider.getTracer('test');
      const p = s.provider({}, { tracer });
      await p.listByTag();
      expect(exporter.getFinishedSpans()).toHaveLength(0);
      let parentId = '';
      await tracer.startActiveSpan('reconcile', async (span) => {
        parentId = span.spanContext().spanId;
        await p.listByTag();
        span.end();
      });
      const http = exporter.getFinishedSpans().filter((sp) => sp.name.startsWith('HTTP '));
      expect(http.length).toBeGreaterThan(0);
      for (const sp of http) {
        expect(sp.parentSpanContext?.spanId).toBe(parentId);
        expect(sp.attributes['http.response.status_code']).toBe(200);
      }
      expect(trace.getActiveSpan()).toBeUndefined();
    } finally {
      context.disable();
    }
  });
});
