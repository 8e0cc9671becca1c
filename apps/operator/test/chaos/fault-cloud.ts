import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** The error classes the fault cloud answers with, as its provider maps them. */
export type FaultClass = 'Transient' | 'QuotaExceeded' | 'Permanent';

/** What the next requests of one operation meet (drawn by the chaos plan). */
export type CloudFault =
  | { kind: 'error'; class: FaultClass }
  /** The create is accepted (its id answered) and fails later: `get` reports the failure. */
  | { kind: 'async'; class: 'QuotaExceeded' | 'Permanent' }
  /** The create takes `ms` before it answers; it completes even if the caller went away. */
  | { kind: 'slow'; ms: number };

export type CloudOp = 'create' | 'get' | 'delete' | 'list';

interface Instance {
  id: string;
  name: string;
  uid: string;
  installation: string;
  createdAt: string;
  /** When it turns Running (a boot). */
  runningAt: number;
  port: number;
  /** Set for a create that was accepted and failed afterwards: no machine, only the answer. */
  failed?: FaultClass;
}

const STATUS: Record<FaultClass, number> = { Transient: 503, QuotaExceeded: 429, Permanent: 403 };

/**
 * A small stateful cloud on loopback for the chaos run's third-party provider: instances keyed by
 * name (create is idempotent), a boot disk made before each instance (the secondary resource a
 * create cut short leaves behind), token auth from a rotatable set, and faults armed per
 * operation. It lives in the test process, so its state survives every operator process.
 */
export class FaultCloud {
  readonly instances = new Map<string, Instance>();
  /** Boot disks by instance name: made first, removed last. */
  readonly disks = new Set<string>();
  /** Answers that carried each class, counted as the provider received them (written whole). */
  readonly answered: Record<FaultClass, number> = { Transient: 0, QuotaExceeded: 0, Permanent: 0 };
  /** Faults served, by kind: `error:<class>`, `async:<class>`, `slow`. */
  readonly served: Record<string, number> = {};
  /** Proxy names (from the instance name) that received each class in a create or get. */
  readonly classesByName = new Map<string, Set<FaultClass>>();
  /** Creates that ran longer than this (ms) are counted in `slowCompleted`. */
  slowThresholdMs = 0;
  slowCompleted = 0;
  /** Tokens whose bearer is accepted. */
  readonly tokens = new Set<string>();
  readyAfterMs = 300;
  #armed = new Map<CloudOp, CloudFault[]>();
  /** Creates still running, by name: a second create of the name answers with the first's id. */
  readonly #pending = new Map<string, Promise<string>>();
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();
  #seq = 0;
  url = '';

  async start(): Promise<void> {
    const server = createServer((req, res) => void this.#handle(req, res));
    server.on('connection', (s: Socket) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    this.#server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((r) => (this.#server ? this.#server.close(() => r()) : r()));
  }

  /** The next `op` meets `fault`. */
  arm(op: CloudOp, fault: CloudFault): void {
    const list = this.#armed.get(op) ?? [];
    list.push(fault);
    this.#armed.set(op, list);
  }

  /** Drops every fault not served yet. */
  disarm(): void {
    this.#armed.clear();
  }

  /** Instances that exist (accepted creates that failed afterwards hold no machine). */
  machines(): Instance[] {
    return [...this.instances.values()].filter((i) => !i.failed);
  }

  #take(op: CloudOp): CloudFault | undefined {
    const list = this.#armed.get(op);
    const f = list?.shift();
    if (list && list.length === 0) this.#armed.delete(op);
    if (f) {
      const key = f.kind === 'slow' ? 'slow' : `${f.kind}:${f.class}`;
      this.served[key] = (this.served[key] ?? 0) + 1;
    }
    return f;
  }

  #note(name: string | undefined, cls: FaultClass): void {
    if (!name) return;
    const set = this.classesByName.get(name) ?? new Set<FaultClass>();
    set.add(cls);
    this.classesByName.set(name, set);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://cloud');
    const send = (status: number, body: unknown, cls?: FaultClass, name?: string) => {
      if (res.destroyed) return;
      const text = JSON.stringify(body);
      res.writeHead(status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
      });
      // Counted once the whole answer is handed to the socket: what a caller can have seen.
      res.end(text, () => {
        if (cls) {
          this.answered[cls]++;
          this.#note(name, cls);
        }
      });
    };
    const fail = (cls: FaultClass, message: string, name?: string) =>
      send(STATUS[cls], { error: { class: cls, code: `CLOUD_${cls.toUpperCase()}`, message } }, cls, name);
    const m = /^\/instances(?:\/([^/]+))?$/.exec(url.pathname);
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || !this.tokens.has(token)) {
      // The provider takes a refused token as Permanent: counted as that class, by name.
      const who = m?.[1] ? this.instances.get(decodeURIComponent(m[1]))?.name : undefined;
      const body =
        req.method === 'POST'
          ? (JSON.parse(Buffer.concat(chunks).toString() || '{}') as { name?: string })
          : {};
      send(
        401,
        { error: { code: 'UNAUTHENTICATED', message: 'the token is not valid' } },
        'Permanent',
        body.name ?? who,
      );
      return;
    }
    if (!m) {
      send(404, { error: { code: 'NO_ROUTE', message: `no route ${url.pathname}` } });
      return;
    }
    const id = m[1] ? decodeURIComponent(m[1]) : undefined;
    const op: CloudOp =
      req.method === 'POST' ? 'create' : req.method === 'DELETE' ? 'delete' : id ? 'get' : 'list';
    const nameOf = (i?: string) => (i ? this.instances.get(i)?.name : undefined);
    const fault = this.#take(op);
    if (fault?.kind === 'error') {
      const body =
        op === 'create' ? (JSON.parse(Buffer.concat(chunks).toString() || '{}') as { name?: string }) : {};
      fail(fault.class, `injected ${fault.class} answer to ${op}`, body.name ?? nameOf(id));
      return;
    }
    if (op === 'create') {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as {
        name: string;
        uid: string;
        installation: string;
        cloudInit?: string;
      };
      this.#create(body, fault, send, fail);
      return;
    }
    if (op === 'list') {
      send(
        200,
        this.machines().map((i) => ({
          id: i.id,
          uid: i.uid,
          installation: i.installation,
          createdAt: i.createdAt,
        })),
      );
      return;
    }
    const inst = this.instances.get(id!);
    if (op === 'delete') {
      if (inst) {
        this.instances.delete(inst.id);
        this.disks.delete(inst.name);
      }
      send(200, {});
      return;
    }
    if (!inst) {
      send(404, { error: { code: 'NOT_FOUND', message: `no instance ${id}` } });
      return;
    }
    if (inst.failed) {
      fail(inst.failed, `the create of ${inst.name} failed after it was accepted`, inst.name);
      return;
    }
    const running = Date.now() >= inst.runningAt;
    send(200, {
      id: inst.id,
      name: inst.name,
      uid: inst.uid,
      installation: inst.installation,
      createdAt: inst.createdAt,
      state: running ? 'Running' : 'Provisioning',
      ...(running ? { ip: '127.0.0.1', port: inst.port } : {}),
    });
  }

  #create(
    body: { name: string; uid: string; installation: string },
    fault: CloudFault | undefined,
    send: (status: number, body: unknown, cls?: FaultClass, name?: string) => void,
    fail: (cls: FaultClass, message: string, name?: string) => void,
  ): void {
    const started = Date.now();
    const pending = this.#pending.get(body.name);
    if (pending) {
      void pending.then((id) => send(200, { id }));
      return;
    }
    const existing = [...this.instances.values()].find((i) => i.name === body.name);
    if (existing && !existing.failed) {
      if (existing.uid && existing.uid !== body.uid) {
        fail('Permanent', `instance ${body.name} belongs to uid ${existing.uid}`, body.name);
        return;
      }
      send(200, { id: existing.id });
      return;
    }
    if (existing?.failed) this.instances.delete(existing.id);
    // The disk first: a create cut short after this leaves it for the next create (or a leak).
    this.disks.add(body.name);
    const finish = () => {
      const id = `i-${++this.#seq}`;
      const inst: Instance = {
        id,
        name: body.name,
        uid: body.uid,
        installation: body.installation,
        createdAt: new Date().toISOString(),
        runningAt: Date.now() + this.readyAfterMs,
        port: 3128,
      };
      if (fault?.kind === 'async') {
        inst.failed = fault.class;
        this.disks.delete(body.name);
      }
      this.instances.set(id, inst);
      if (Date.now() - started > this.slowThresholdMs && fault?.kind === 'slow') this.slowCompleted++;
      send(201, { id });
      return id;
    };
    if (fault?.kind === 'slow') {
      let done!: (id: string) => void;
      this.#pending.set(body.name, new Promise<string>((r) => (done = r)));
      setTimeout(() => {
        this.#pending.delete(body.name);
        done(finish());
      }, fault.ms);
    } else finish();
  }
}
