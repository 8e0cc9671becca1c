import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { CreateCall } from '../support/backoff-gaps.js';

/** The error classes the fault cloud answers with, as its provider maps them. */
export type FaultClass = 'Transient' | 'QuotaExceeded' | 'Permanent';

/** What the next requests of one operation meet (drawn by the chaos plan). */
export type CloudFault =
  | { kind: 'error'; class: FaultClass }
  /** The create is accepted (its id answered) and fails later: `get` reports the failure. */
  | { kind: 'async'; class: 'QuotaExceeded' | 'Permanent' }
  /** The create takes `ms` before it answers; it completes even if the caller went away. */
  | { kind: 'slow'; ms: number }
  /** The create is never answered: only the caller's abort (its deadline, an edit, a kill) ends it. */
  | { kind: 'hang' };

/** Why the operator aborted a hung create, as its provider saw the signal's reason. */
export type AbortCause = 'deadline' | 'spec-changed' | 'other';

/**
 * One create request, timed by the calling operator process (`epoch` is its pid): its end and,
 * for an aborted one, the abort's cause arrive with that process's next create of the name.
 */
export interface CloudCreate extends CreateCall {
  epoch: string;
  seq: number;
  cause?: AbortCause;
  /** When the cloud saw a hung create's connection close (its own clock, wall-clock ms). */
  closedAt?: number;
}

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
const OUTCOME = { Transient: 'transient', QuotaExceeded: 'quota', Permanent: 'permanent' } as const;

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
  /** Every create request, in arrival order. */
  readonly creates: CloudCreate[] = [];
  /** Names whose creates hang until the operator aborts one (by its deadline or an edit). */
  readonly #hanging = new Set<string>();
  /** Names whose next creates are answered with these classes, in order (not counted as served). */
  readonly #scripted = new Map<string, FaultClass[]>();
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

  /**
   * Every create of `name` hangs until the operator aborts one by its create deadline or an edit
   * (learnt from the next create's report, which is then served as usual): an operator killed
   * meanwhile does not spend the fault, its successor's create hangs again.
   */
  hangCreatesOf(name: string): void {
    this.#hanging.add(name);
  }

  /** The next creates of `name` are answered with `classes`, in order, before any armed fault. */
  scriptCreates(name: string, classes: FaultClass[]): void {
    this.#scripted.set(name, [...classes]);
  }

  /** Drops every fault not served yet (a name's hang stays until its cause is seen). */
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
      const key = f.kind === 'slow' || f.kind === 'hang' ? f.kind : `${f.kind}:${f.class}`;
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
      if (req.method === 'POST' && m && !m[1]) {
        const name = (JSON.parse(Buffer.concat(chunks).toString() || '{}') as { name?: string }).name;
        if (name) this.#record(req, name).outcome = 'permanent';
      }
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
    const body =
      op === 'create'
        ? (JSON.parse(Buffer.concat(chunks).toString() || '{}') as {
            name: string;
            uid: string;
            installation: string;
            cloudInit?: string;
          })
        : undefined;
    const record = body ? this.#record(req, body.name) : undefined;
    const scripted = body && this.#scripted.get(body.name)?.shift();
    const fault: CloudFault | undefined =
      body && this.#hanging.has(body.name)
        ? { kind: 'hang' }
        : scripted
          ? { kind: 'error', class: scripted }
          : this.#take(op);
    if (fault?.kind === 'error') {
      if (record) record.outcome = OUTCOME[fault.class];
      fail(fault.class, `injected ${fault.class} answer to ${op}`, body?.name ?? nameOf(id));
      return;
    }
    if (body && record) {
      if (fault?.kind === 'hang') {
        record.outcome = 'hang';
        // Never answered; the caller's abort closes the connection.
        res.once('close', () => {
          record.closedAt = Date.now();
        });
        return;
      }
      this.#create(body, fault, record, send, fail);
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

  /**
   * Records a create request from its `x-chaos-call` header (`pid/seq@at`), and completes the
   * record of that process's earlier create of the name from `x-chaos-prev` (`seq@endedAt@cause`).
   * A hung create of `name` reported aborted by the operator lifts the name's hang.
   */
  #record(req: IncomingMessage, name: string): CloudCreate {
    const call = /^(\d+)\/(\d+)@([\d.]+)$/.exec(String(req.headers['x-chaos-call'] ?? ''));
    const epoch = call?.[1] ?? 'unknown';
    const record: CloudCreate = {
      name,
      epoch,
      seq: Number(call?.[2] ?? 0),
      at: Number(call?.[3] ?? Date.now()),
      outcome: 'error',
    };
    const prev = /^(\d+)@([\d.]+)@(\S*)$/.exec(String(req.headers['x-chaos-prev'] ?? ''));
    if (prev) {
      const earlier = this.creates.find((c) => c.epoch === epoch && c.seq === Number(prev[1]));
      if (earlier) {
        earlier.endedAt = Number(prev[2]);
        if (prev[3]) earlier.cause = prev[3] as AbortCause;
        if (earlier.outcome === 'hang' && (earlier.cause === 'deadline' || earlier.cause === 'spec-changed'))
          this.#hanging.delete(name);
      }
    }
    this.creates.push(record);
    return record;
  }

  #create(
    body: { name: string; uid: string; installation: string },
    fault: CloudFault | undefined,
    record: CloudCreate,
    send: (status: number, body: unknown, cls?: FaultClass, name?: string) => void,
    fail: (cls: FaultClass, message: string, name?: string) => void,
  ): void {
    const started = Date.now();
    const pending = this.#pending.get(body.name);
    if (pending) {
      record.outcome = 'done';
      void pending.then((id) => send(200, { id }));
      return;
    }
    const existing = [...this.instances.values()].find((i) => i.name === body.name);
    if (existing && !existing.failed) {
      if (existing.uid && existing.uid !== body.uid) {
        record.outcome = 'permanent';
        fail('Permanent', `instance ${body.name} belongs to uid ${existing.uid}`, body.name);
        return;
      }
      record.outcome = 'done';
      send(200, { id: existing.id });
      return;
    }
    record.outcome = fault?.kind === 'async' ? 'async' : 'done';
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
