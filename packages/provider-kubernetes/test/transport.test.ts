import { Agent } from 'node:http';
import { ErrorCode, ErrorKind } from '@egress-proxies/contract';
import { createLogger, type LogLine } from '@egress-proxies/provider-utils';
import { type KubeControlPlane, startKubeControlPlane } from '@egress-proxies/testenv-kube';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKubernetesProvider } from '../src/index.js';
import type { KubeFetch } from '../src/internal/index.js';
import { CONTROL_PLANE_BUDGET_MS, must, relayKubeconfig } from '../src/test/kube.js';
import { KubeRelay } from '../src/test/relay.js';
import { createRequest, rejection } from './helpers.js';

const NS = 'transport';

const request = () => createRequest(NS, { cloudInit: '#cloud-config\nsecret: do-not-log-me' });

describe('the client-node adapter through a fault-injecting relay', () => {
  let cp: KubeControlPlane;
  let relay: KubeRelay;
  let kubeconfig: string;
  beforeAll(async () => {
    cp = await startKubeControlPlane();
    await cp.ensureNamespace(NS);
    relay = await KubeRelay.start(cp.server, cp.caPem);
    kubeconfig = relayKubeconfig(relay.url, cp.adminToken);
  }, CONTROL_PLANE_BUDGET_MS);
  afterEach(async () => {
    await relay?.reset();
  });
  afterAll(async () => {
    await relay?.close();
    await cp?.stop();
  });

  it.each([
    ['internal', ErrorKind.Transient, ErrorCode.BackendError],
    ['busy', ErrorKind.Transient, ErrorCode.Busy],
    ['unreachable', ErrorKind.Transient, ErrorCode.Unreachable],
    ['not-found', ErrorKind.Transient, ErrorCode.Transient],
  ] as const)('a %s answer to createPod is %s %s', async (fault, kind, code) => {
    const provider = createKubernetesProvider({}, { name: 'k8s-relay', kubeConfig: kubeconfig });
    relay.failNext('createPod', 1, fault);
    const e = await rejection(provider.create(request()));
    expect(e.kind).toBe(kind);
    expect(e.code).toBe(code);
    expect(e.provider).toBe('k8s-relay');
    expect(e.operation).toBe('create');
  });

  it('a 429 on get is Transient with the Retry-After in the details, never NotFound', async () => {
    const provider = createKubernetesProvider({}, { kubeConfig: kubeconfig });
    const id = await provider.create(request());
    relay.setBusy(true);
    const e = await rejection(provider.get(id));
    expect(e.kind).toBe(ErrorKind.Transient);
    expect(e.details).toMatchObject({ status: 429, retryAfterSeconds: 1 });
  });

  it('a stopped relay makes every call Transient UNREACHABLE and the Checker Unreachable', async () => {
    const provider = createKubernetesProvider({}, { kubeConfig: kubeconfig });
    const id = await provider.create(request());
    await relay.setUnreachable(true);
    const e = await rejection(provider.get(id));
    expect(e.kind).toBe(ErrorKind.Transient);
    expect(e.code).toBe(ErrorCode.Unreachable);
    const [r] = await provider.check();
    expect(r).toMatchObject({ ready: false, reason: 'Unreachable', address: relay.url });
    await relay.setUnreachable(false);
    expect((await provider.get(id)).id).toBe(id);
  });

  it('an abort returns promptly and cancels the HTTP request itself', async () => {
    const provider = createKubernetesProvider({}, { kubeConfig: kubeconfig });
    const id = await provider.create(request());
    const gate = relay.block('readPod');
    const before = relay.cancelled;
    const ac = new AbortController();
    const pending = rejection(provider.get(id, { signal: ac.signal }));
    await gate.reached;
    expect(relay.inFlight('readPod')).toBe(1);
    const started = performance.now();
    ac.abort();
    const e = await pending;
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(e.kind).toBe(ErrorKind.Transient);
    expect(e.code).toBe(ErrorCode.Aborted);
    // The relay saw its client go away: the request was cancelled, not left running.
    await expect.poll(() => relay.cancelled).toBe(before + 1);
    await expect.poll(() => relay.inFlight('readPod')).toBe(0);
    gate.release();
  });

  it('delete never removes a Pod recreated under the same name between its read and its delete', async () => {
    const provider = createKubernetesProvider({}, { kubeConfig: kubeconfig });
    const req = request();
    const id = await provider.create(req);
    const gate = relay.block('deletePod');
    const pending = rejection(provider.delete(id));
    await gate.reached;
    // Behind the provider's back: the Pod is replaced by another one with the same name and mark.
    const path = `/api/v1/namespaces/${NS}/pods/${req.name}`;
    await must(cp.request('DELETE', path), [200], 'out-of-band delete');
    await must(
      cp.request('POST', `/api/v1/namespaces/${NS}/pods`, {
        metadata: {
          name: req.name,
          labels: { 'proxy-operator-managed': 'true', 'proxy-operator-uid': 'other' },
        },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      }),
      [201],
      'replacement',
    );
    gate.release();
    const e = await pending;
    expect(e.kind).toBe(ErrorKind.Transient);
    expect(e.details).toMatchObject({ status: 409, reason: 'Conflict' });
    const still = (await must(cp.request('GET', path), [200], 'replacement survives')).json<{
      metadata: { labels: Record<string, string> };
    }>();
    expect(still.metadata.labels['proxy-operator-uid']).toBe('other');
  });

  it('a Pod that vanishes between AlreadyExists and the read makes create Transient, not NotFound', async () => {
    const provider = createKubernetesProvider({}, { kubeConfig: kubeconfig });
    const req = request();
    await provider.create(req);
    relay.failNext('readPod', 1, 'not-found');
    const e = await rejection(provider.create(req));
    expect(e.kind).toBe(ErrorKind.Transient);
    expect(e.details).toMatchObject({ status: 404 });
  });

  it('an already-aborted signal makes no call at all', async () => {
    const provider = createKubernetesProvider({}, { kubeConfig: kubeconfig });
    relay.clearCalls();
    const ac = new AbortController();
    ac.abort();
    const e = await rejection(provider.create(request(), { signal: ac.signal }));
    expect(e.kind).toBe(ErrorKind.Transient);
    expect(relay.calls).toHaveLength(0);
    const [r] = await provider.check({ signal: ac.signal });
    expect(r?.reason).toBe('Timeout');
  });

  it('a Checker whose signal expires mid-call reports Timeout', async () => {
    const provider = createKubernetesProvider({}, { kubeConfig: kubeconfig });
    const gate = relay.block('accessReview');
    const ac = new AbortController();
    const pending = provider.check({ signal: ac.signal });
    await gate.reached;
    ac.abort(new DOMException('out of time', 'TimeoutError'));
    const [r] = await pending;
    expect(r?.reason).toBe('Timeout');
    expect(r?.details.serverVersion).toMatch(/^v/);
  });

  it('routes every call through an injected fetch and agent', async () => {
    const seen: string[] = [];
    const agent = new Agent({ keepAlive: true });
    const fetchFn: KubeFetch = async (url, init) => {
      seen.push(`${init.method} ${new URL(url).pathname} agent=${init.agent === agent}`);
      return fetch(url, {
        method: init.method,
        headers: init.headers,
        ...(init.body !== undefined ? { body: init.body } : {}),
        ...(init.signal ? { signal: init.signal } : {}),
      });
    };
    const provider = createKubernetesProvider({}, { kubeConfig: kubeconfig, fetch: fetchFn, agent });
    const req = request();
    const id = await provider.create(req);
    await provider.get(id);
    await provider.delete(id);
    expect(seen).toEqual([
      `POST /api/v1/namespaces/${NS}/pods agent=true`,
      `GET /api/v1/namespaces/${NS}/pods/${req.name} agent=true`,
      `GET /api/v1/namespaces/${NS}/pods/${req.name} agent=true`,
      `DELETE /api/v1/namespaces/${NS}/pods/${req.name} agent=true`,
    ]);
    agent.destroy();
  });

  it('puts one child span per API call under the caller span, and logs V1 outcomes and V2 detail', async () => {
    const exporter = new InMemorySpanExporter();
    const tp = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const cm = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(cm);
    try {
      const tracer = tp.getTracer('test');
      const provider = createKubernetesProvider({}, { name: 'k8s-traced', kubeConfig: kubeconfig, tracer });
      const lines: LogLine[] = [];
      const logger = createLogger({ verbosity: 2, sink: (l) => lines.push(l) });
      const req = request();
      const parent = tracer.startSpan('provider.create');
      await context.with(trace.setSpan(context.active(), parent), () => provider.create(req, { logger }));
      parent.end();
      const spans = exporter.getFinishedSpans();
      const child = spans.find((s) => s.name === 'kubernetes.createPod');
      expect(child).toBeDefined();
      expect(child?.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
      expect(child?.spanContext().traceId).toBe(parent.spanContext().traceId);
      expect(child?.attributes).toMatchObject({ 'k8s.namespace.name': NS, 'k8s.pod.name': req.name });

      const call = lines.find((l) => l.msg === 'kubernetes api call');
      expect(call).toMatchObject({ level: 1, provider: 'k8s-traced', call: 'createPod', outcome: 'ok' });
      expect(call?.traceId).toBe(parent.spanContext().traceId);
      expect(lines.find((l) => l.msg === 'create')).toMatchObject({ level: 1, outcome: 'created' });
      expect(lines.some((l) => l.level === 2)).toBe(true);
      for (const l of lines) expect(l.provider).toBe('k8s-traced');
      expect(JSON.stringify(lines)).not.toContain('do-not-log-me');
      expect(JSON.stringify(lines)).not.toContain(cp.adminToken);

      // A failed call marks its span and logs the status.
      relay.failNext('readPod', 1, 'internal');
      await rejection(provider.get(`${NS}/${req.name}`, { logger }));
      const failed = exporter.getFinishedSpans().find((s) => s.name === 'kubernetes.readPod');
      expect(failed?.status.code).toBe(2);
      expect(failed?.attributes['http.response.status_code']).toBe(500);
      expect(lines.at(-2)).toMatchObject({ call: 'readPod', outcome: 'error', status: 500 });
    } finally {
      cm.disable();
      context.disable();
      await tp.shutdown();
    }
  });

  it('writes nothing at V0', async () => {
    const lines: LogLine[] = [];
    const provider = createKubernetesProvider({}, { kubeConfig: kubeconfig });
    const logger = createLogger({ verbosity: 0, sink: (l) => lines.push(l) });
    const id = await provider.create(request(), { logger });
    await provider.get(id, { logger });
    await provider.delete(id, { logger });
    expect(lines).toEqual([]);
  });
});
