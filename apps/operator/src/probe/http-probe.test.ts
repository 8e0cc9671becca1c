import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEchoServer, startForwardProxy, startTlsEchoServer } from '../../test/support/forward-proxy.js';
import { createHttpProbe, egressFrom } from './http-probe.js';

let proxy: Awaited<ReturnType<typeof startForwardProxy>>;
let echo: Awaited<ReturnType<typeof startEchoServer>>;
let tlsEcho: Awaited<ReturnType<typeof startTlsEchoServer>>;

beforeAll(async () => {
  proxy = await startForwardProxy();
  echo = await startEchoServer();
  tlsEcho = await startTlsEchoServer();
});
afterAll(async () => {
  await proxy.stop();
  await echo.stop();
  await tlsEcho.stop();
});

const req = (target: string, port = proxy.port) => ({
  host: '127.0.0.1',
  port,
  target,
  timeoutMs: 2000,
  retries: 0,
});

describe('http probe', () => {
  it('fetches an http target through the proxy and records the egress IP', async () => {
    const r = await createHttpProbe()(req(echo.url));
    expect(r).toMatchObject({ ok: true, egressIP: '127.0.0.1' });
    expect(proxy.requests).toContain(`GET ${echo.url}`);
  });

  it('tunnels an https target with CONNECT and verifies TLS against the given CA', async () => {
    const r = await createHttpProbe({ ca: tlsEcho.caPem })(req(tlsEcho.url));
    expect(r.error).toBeUndefined();
    expect(r).toMatchObject({ ok: true, egressIP: '127.0.0.1' });
    expect(proxy.requests).toContain(`CONNECT 127.0.0.1:${tlsEcho.port}`);
  });

  it('fails an https target whose certificate is not trusted', async () => {
    const r = await createHttpProbe()(req(tlsEcho.url));
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/certificate/i);
  });

  it('fails with the reason when the proxy does not answer, after the retries', async () => {
    const closed = await startEchoServer();
    await closed.stop();
    const r = await createHttpProbe({ retryDelayMs: 1 })({ ...req(echo.url, closed.port), retries: 2 });
    expect(r.ok).toBe(false);
    expect(r.error).toContain('ECONNREFUSED');
  });

  it('fails a non-2xx answer naming the status', async () => {
    const r = await createHttpProbe()(req('http://10.255.255.1/'));
    expect(r).toMatchObject({ ok: false, error: 'target answered HTTP 403' });
  });

  it('maps the reported address with resolve', async () => {
    const seen: string[] = [];
    const probe = createHttpProbe({
      resolve: (host, port) => {
        seen.push(`${host}:${port}`);
        return { host: '127.0.0.1', port: proxy.port };
      },
    });
    const r = await probe({ host: '192.0.2.7', port: 3128, target: echo.url, timeoutMs: 2000, retries: 0 });
    expect(r.ok).toBe(true);
    expect(seen).toEqual(['192.0.2.7:3128']);
  });

  it('times out a hanging proxy within the budget', async () => {
    const { createServer } = await import('node:net');
    const hang = createServer(() => {});
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    const port = (hang.address() as import('node:net').AddressInfo).port;
    const r = await createHttpProbe()({ ...req(echo.url, port), timeoutMs: 200 });
    hang.close();
    expect(r).toMatchObject({ ok: false, error: 'timed out after 200 ms' });
  });
});

describe('egressFrom', () => {
  it('reads a bare address or an ip/origin field', () => {
    expect(egressFrom(' 203.0.113.5\n')).toBe('203.0.113.5');
    expect(egressFrom('{"origin":"198.51.100.1, 10.0.0.1"}')).toBe('198.51.100.1');
    expect(egressFrom('{"ip":"2001:db8::1"}')).toBe('2001:db8::1');
    expect(egressFrom('hello')).toBeUndefined();
  });
});
