import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ServedDownload {
  remote: string;
  bytes: number;
  ms: number;
  status: number;
}

export interface ImageServer {
  url: string;
  /** Every GET of the image, finished or not. */
  downloads: ServedDownload[];
  close(): Promise<void>;
}

export interface EchoServer {
  url: string;
  /** The source address of every request, in arrival order. */
  callers: string[];
  close(): Promise<void>;
}

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

const remoteOf = (addr: string | undefined) => (addr ?? '').replace(/^::ffff:/, '');

/** Serves one file with Content-Length (the providers require it), recording each transfer. */
export async function startImageServer(
  host: string,
  file: string,
  urlPath = '/proxy.qcow2',
): Promise<ImageServer> {
  const downloads: ServedDownload[] = [];
  const server = createServer((req, res) => {
    if (req.url !== urlPath || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404).end();
      return;
    }
    const size = statSync(file).size;
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(size) });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const rec: ServedDownload = { remote: remoteOf(req.socket.remoteAddress), bytes: 0, ms: 0, status: 200 };
    downloads.push(rec);
    const started = performance.now();
    const body = createReadStream(file);
    body.on('data', (c) => {
      rec.bytes += c.length;
    });
    res.on('close', () => {
      rec.ms = performance.now() - started;
    });
    body.pipe(res);
  });
  const port = await listen(server, host);
  return { url: `http://${host}:${port}${urlPath}`, downloads, close: closer(server) };
}

/** Answers every request with the caller's address as `{"ip": ...}`: what the probe records. */
export async function startEchoServer(host: string): Promise<EchoServer> {
  const callers: string[] = [];
  const server = createServer((req, res) => {
    const ip = remoteOf(req.socket.remoteAddress);
    callers.push(ip);
    res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
    res.end(`${JSON.stringify({ ip })}\n`);
  });
  const port = await listen(server, host);
  return { url: `http://${host}:${port}/`, callers, close: closer(server) };
}
