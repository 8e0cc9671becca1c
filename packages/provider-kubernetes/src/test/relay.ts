import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

/** The seam call a request to the API server belongs to, named as the seam names it. */
export type RelayStep =
  | 'createPod'
  | 'readPod'
  | 'deletePod'
  | 'listPods'
  | 'version'
  | 'accessReview'
  | 'other';
export type RelayFault = 'unreachable' | 'busy' | 'not-found' | 'internal' | 'out-of-capacity';

export interface RelayCall {
  step: RelayStep;
  method: string;
  path: string;
  /** The Pod name for calls on one Pod. */
  instance?: string;
}

export interface RelayGate {
  readonly reached: Promise<void>;
  readonly held: number;
  release(): void;
}

/** Maps an API request to the seam call that made it. */
export function stepOf(method: string, path: string): { step: RelayStep; instance?: string } {
  const p = path.split('?')[0] ?? '';
  if (p === '/version' || p === '/version/') return { step: 'version' };
  if (p === '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews') return { step: 'accessReview' };
  if (p === '/api/v1/pods') return { step: 'listPods' };
  const one = /^\/api\/v1\/namespaces\/[^/]+\/pods\/([^/]+)$/.exec(p);
  if (one) {
    if (method === 'GET') return { step: 'readPod', instance: decodeURIComponent(one[1]!) };
    if (method === 'DELETE') return { step: 'deletePod', instance: decodeURIComponent(one[1]!) };
  }
  if (/^\/api\/v1\/namespaces\/[^/]+\/pods$/.test(p))
    return { step: method === 'POST' ? 'createPod' : 'listPods' };
  return { step: 'other' };
}

function statusBody(code: number, reason: string, message: string): string {
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
  });
}

/**
 * A plain-HTTP relay on 127.0.0.1 in front of the real (HTTPS) API server, for tests: it forwards
 * every request, records which seam call it was, and can fail, hold or drop named calls, answer
 * busy, swap the bearer token, or stop listening altogether. A request whose client goes away
 * while held or in flight is cancelled upstream too, and counted.
 */
export class KubeRelay {
  readonly calls: RelayCall[] = [];
  /** Requests whose client disconnected before the answer was sent. */
  cancelled = 0;
  #server: Server;
  #port = 0;
  #sockets = new Set<Socket>();
  #faults: { step: RelayStep; count: number; fault: RelayFault }[] = [];
  #gates = new Map<
    RelayStep,
    { release(): void; held: number; waiters: Set<() => void>; reached: () => void }
  >();
  #inFlight = new Map<RelayStep, number>();
  #busy = false;
  #down = false;
  #token: string | undefined;

  private constructor(
    readonly upstream: string,
    readonly caPem: string,
  ) {
    this.#server = this.#makeServer();
  }

  static async start(upstream: string, caPem: string): Promise<KubeRelay> {
    const r = new KubeRelay(upstream, caPem);
    await r.#listen(0);
    return r;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  inFlight(step?: RelayStep): number {
    if (step) return this.#inFlight.get(step) ?? 0;
    let n = 0;
    for (const v of this.#inFlight.values()) n += v;
    return n;
  }

  failNext(step: RelayStep, count: number, fault: RelayFault): void {
    this.#faults.push({ step, count, fault });
  }

  setBusy(on: boolean): void {
    this.#busy = on;
  }

  /** Sends `token` upstream instead of the client's (undefined: the client's own). */
  replaceToken(token: string | undefined): void {
    this.#token = token;
  }

  /** Holds every request of `step` until released (or its client goes away). */
  block(step: RelayStep): RelayGate {
    let reached!: () => void;
    const reachedP = new Promise<void>((r) => {
      reached = r;
    });
    const gate = {
      held: 0,
      waiters: new Set<() => void>(),
      reached,
      release: () => {
        if (this.#gates.get(step) === gate) this.#gates.delete(step);
        for (const w of gate.waiters) w();
        gate.waiters.clear();
      },
    };
    this.#gates.set(step, gate);
    return {
      reached: reachedP,
      get held() {
        return gate.held;
      },
      release: gate.release,
    };
  }

  /** Stops listening and drops every connection (on), or listens again on the same port (off). */
  async setUnreachable(on: boolean): Promise<void> {
    if (on === this.#down) return;
    this.#down = on;
    if (on) {
      for (const s of this.#sockets) s.destroy();
      await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    } else {
      this.#server = this.#makeServer();
      await this.#listen(this.#port);
    }
  }

  async reset(): Promise<void> {
    this.#faults = [];
    for (const g of [...this.#gates.values()]) g.release();
    this.#busy = false;
    this.#token = undefined;
    await this.setUnreachable(false);
  }

  clearCalls(): void {
    this.calls.length = 0;
  }

  async close(): Promise<void> {
    for (const g of [...this.#gates.values()]) g.release();
    for (const s of this.#sockets) s.destroy();
    if (!this.#down) await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#down = true;
  }

  #makeServer(): Server {
    const server = createServer((req, res) => {
      void this.#handle(req, res);
    });
    server.on('connection', (s) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
    return server;
  }

  #listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, '127.0.0.1', () => {
        this.#port = (this.#server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  #takeFault(step: RelayStep): RelayFault | undefined {
    const f = this.#faults.find((x) => x.step === step && x.count > 0);
    if (!f) return undefined;
    f.count -= 1;
    return f.fault;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const { step, instance } = stepOf(method, path);
    this.calls.push({ step, method, path, ...(instance ? { instance } : {}) });
    this.#inFlight.set(step, (this.#inFlight.get(step) ?? 0) + 1);
    let answered = false;
    let clientGone = false;
    res.on('finish', () => {
      answered = true;
    });
    res.on('close', () => {
      this.#inFlight.set(step, (this.#inFlight.get(step) ?? 1) - 1);
      if (!answered) {
        clientGone = true;
        this.cancelled += 1;
      }
    });
    const reply = (code: number, reason: string, message: string, headers: Record<string, string> = {}) => {
      const text = statusBody(code, reason, message);
      res.writeHead(code, { 'content-type': 'application/json', ...headers });
      res.end(text);
    };

    if (this.#busy)
      return reply(429, 'TooManyRequests', 'the relay says: too many requests', { 'retry-after': '1' });
    const fault = this.#takeFault(step);
    switch (fault) {
      case 'unreachable':
        req.socket.destroy();
        return;
      case 'busy':
        return reply(429, 'TooManyRequests', 'the relay says: too many requests', { 'retry-after': '1' });
      case 'not-found':
        return reply(404, 'NotFound', `the relay says: ${instance ?? 'it'} not found`);
      case 'internal':
        return reply(500, 'InternalError', 'the relay says: an internal error occurred');
      case 'out-of-capacity':
        return reply(
          403,
          'Forbidden',
          `pods "${instance ?? 'x'}" is forbidden: exceeded quota: relay, requested: pods=1, used: pods=0, limited: pods=0`,
        );
      default:
    }
    const gate = this.#gates.get(step);
    if (gate) {
      gate.held += 1;
      gate.reached();
      await new Promise<void>((resolve) => {
        gate.waiters.add(resolve);
        res.on('close', resolve);
      });
      gate.held -= 1;
      // A client that aborted just before the release may not have been noticed yet: give its
      // disconnect a moment to arrive, so a cancelled request is never forwarded late.
      await new Promise((resolve) => setTimeout(resolve, 25));
      if (clientGone || res.destroyed || req.socket.destroyed) return;
    }
    this.#forward(method, path, req.headers, body, res);
  }

  #forward(
    method: string,
    path: string,
    headers: IncomingMessage['headers'],
    body: Buffer,
    res: ServerResponse,
  ) {
    const h: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(headers)) {
      if (v === undefined || k === 'host' || k === 'connection') continue;
      h[k] = v;
    }
    if (this.#token !== undefined) h.authorization = `Bearer ${this.#token}`;
    const up = httpsRequest(`${this.upstream}${path}`, { method, ca: this.caPem, headers: h }, (ur) => {
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      ur.pipe(res);
    });
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
    up.on('error', (err) => {
      if (res.headersSent) res.destroy();
      else if (!res.destroyed) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`relay upstream error: ${err.message}`);
      }
    });
    up.end(body);
  }
}
