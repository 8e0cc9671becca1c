import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthDecision, Authenticate } from './bearer-auth.js';
import type { StatusPageData } from './page-data.js';
import { STATUS_PAGE_HTML } from './page-html.js';
import { UpdateStream } from './update-stream.js';

export interface StatusPageOptions {
  /** Loopback only without `authenticate`: the page names every member's address. */
  host: string;
  /** Checks every request first (in the cluster: a bearer token); any host is allowed with it. */
  authenticate?: Authenticate;
  /**
   * With `authenticate`: how often an open live stream's request is checked again (default 10 s);
   * the stream ends once it is refused (a token expired, a reader's role taken away).
   */
  recheckStreamsMs?: number;
  /** 0 for any free port. */
  port: number;
  /** The data now; read on each request and on each `intervalMs` to push changes. */
  snapshot: () => StatusPageData;
  /** How often open pages are sent what changed (default 500 ms). */
  intervalMs?: number;
  /** Called once the page has closed (the data source can stop listening). */
  onClose?: () => void;
}

export interface RunningStatusPage {
  readonly url: string;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** The request's path without its query, read once per request. */
const pathOf = (req: IncomingMessage): string => (req.url ?? '/').split('?')[0] ?? '/';

/** The page itself (the HTML), as opposed to its API. */
const isPage = (path: string) => path === '/' || path === '/index.html';

/**
 * The status page: `/` the HTML, `/api/status` the data as JSON, `/api/events` the same data as
 * server-sent events: the whole data first, then a `patch` event each time it changes. Read-only (GET and HEAD only).
 */
export async function startStatusPage(opts: StatusPageOptions): Promise<RunningStatusPage> {
  if (!opts.authenticate && !LOOPBACK.has(opts.host))
    throw new Error(
      `status page host ${JSON.stringify(opts.host)}: only a loopback address (127.0.0.1, ::1, localhost) is allowed, since the page has no authentication`,
    );
  const streams = new Set<ServerResponse>();
  // Every open page has been sent the same updates: one stream of patches serves them all.
  const updates = new UpdateStream();
  const push = (data: StatusPageData) => {
    const patch = updates.next(data);
    if (!patch) return;
    const message = `event: patch\ndata: ${JSON.stringify(patch)}\n\n`;
    for (const s of streams) s.write(message);
  };
  const handle = (req: IncomingMessage, res: ServerResponse, path: string) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (isPage(path)) {
      res
        .writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          // Nothing but its own inline script and style, and its own endpoints.
          'content-security-policy':
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'",
        })
        .end(STATUS_PAGE_HTML);
      return;
    }
    if (path === '/api/status') {
      res
        .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' })
        .end(`${JSON.stringify(opts.snapshot())}\n`);
      return;
    }
    if (path === '/api/events') {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      // Everyone connected gets what changed since the last push, so all stay in step; the new
      // page gets the whole data.
      const data = opts.snapshot();
      push(data);
      res.write(`data: ${JSON.stringify(data)}\n\n`);
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  };
  const server = createServer((req, res) => {
    const authenticate = opts.authenticate;
    // The page itself holds no data (it asks for a token and then reads the API with it); only
    // the API is behind authentication.
    const path = pathOf(req);
    if (!authenticate || isPage(path)) return handle(req, res, path);
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    void authenticate(req.headers, gone.signal)
      .catch((): AuthDecision => ({ ok: false, status: 503, message: 'cannot verify the request now' }))
      .then((d) => {
        if (!d.ok) return deny(res, d);
        handle(req, res, path);
        if (res.writableEnded) return;
        const recheck = setInterval(() => {
          void authenticate(req.headers, gone.signal)
            .catch((): AuthDecision => ({ ok: false, status: 503, message: '' }))
            .then((again) => {
              if (!again.ok) res.end();
            });
        }, opts.recheckStreamsMs ?? 10_000);
        res.once('close', () => clearInterval(recheck));
      });
  });
  const deny = (res: ServerResponse, d: Exclude<AuthDecision, { ok: true }>) => {
    res
      .writeHead(d.status, {
        'content-type': 'text/plain',
        'cache-control': 'no-store',
        ...(d.status === 401 ? { 'www-authenticate': 'Bearer realm="egress-proxies status"' } : {}),
      })
      .end(`${d.message}\n`);
  };
  const timer = setInterval(() => {
    if (streams.size > 0) push(opts.snapshot());
  }, opts.intervalMs ?? 500);
  timer.unref();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${host}:${port}/`,
    close: () =>
      new Promise<void>((r) => {
        clearInterval(timer);
        for (const s of streams) s.end();
        server.closeAllConnections();
        server.close(() => {
          opts.onClose?.();
          r();
        });
      }),
  };
}
