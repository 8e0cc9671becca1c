import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface HttpServerOptions {
  host: string;
  port: number;
  registry: Registry;
  /** Liveness: false only when the process is wedged. */
  healthy: () => boolean;
  /** Readiness: the cache is synced and a providers config is loaded. */
  ready: () => boolean;
}

/** `/metrics`, `/healthz` and `/readyz` on one port. */
export async function startHttpServer(
  opts: HttpServerOptions,
): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end();
      return;
    }
    if (path === '/metrics') {
      opts.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': opts.registry.contentType }).end(text),
        (err) => res.writeHead(500).end(String(err)),
      );
      return;
    }
    if (path === '/healthz' || path === '/readyz') {
      const ok = path === '/healthz' ? opts.healthy() : opts.ready();
      res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'ok\n' : 'not ready\n');
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
