import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeProxyStore } from './kube-proxy-store.js';

let server: Server;
let kc: KubeConfig;
const seen: IncomingMessage[] = [];
const bodies: string[] = [];

beforeAll(async () => {
  // An API server that accepts requests and never answers.
  server = createServer((req) => {
    seen.push(req);
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => bodies.push(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: 'c',
        server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        skipTLSVerify: true,
      },
    ],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('Kubernetes API calls of the stores', () => {
  it('return promptly when their signal aborts, and name the operator as the user agent', async () => {
    const store = new KubeProxyStore({ kubeConfig: kc });
    const started = Date.now();
    const err = await store.readSecret('ns', 's', 'k', AbortSignal.timeout(150)).catch((e: unknown) => e);
    expect(String(err)).toMatch(/abort|timeout/i);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(seen.at(-1)?.headers['user-agent']).toBe('egress-proxies-operator');
  });

  it('send status patches as merge patches to the status subresource', async () => {
    const store = new KubeProxyStore({ kubeConfig: kc });
    const proxy = { metadata: { name: 'p', namespace: 'ns' }, spec: {}, status: { ip: '1.2.3.4' } };
    await expect(store.updateStatus(proxy, { phase: 'Ready' }, AbortSignal.timeout(150))).rejects.toThrow(
      /abort|timeout/i,
    );
    const req = seen.at(-1)!;
    expect(req.method).toBe('PATCH');
    expect(req.url).toBe('/apis/egress-proxies.dev/v1alpha1/namespaces/ns/proxies/p/status');
    expect(req.headers['content-type']).toBe('application/merge-patch+json');
    // A field the new status dropped is sent as null, so the merge patch removes it.
    await new Promise((r) => setTimeout(r, 50));
    expect(JSON.parse(bodies.at(-1)!)).toEqual({ status: { phase: 'Ready', ip: null } });
  });
});
