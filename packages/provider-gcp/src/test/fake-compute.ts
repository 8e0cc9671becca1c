import { createHash, randomBytes, verify } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ComputeFirewall, ComputeInstance, ComputeOperation, ComputeQuota } from '../backend.js';
import { computeErrors, type FakeError } from './fake-errors.js';
import { matches, parseFilter } from './fake-filter.js';
import { labelProblem } from './fake-labels.js';

const SELF = 'https://www.googleapis.com/compute/v1';
const TOKEN_AUDIENCE = 'https://oauth2.googleapis.com/token';

/** The Compute methods the fake serves; also the step names of its call log and faults. */
export const STEPS = [
  'instances.get',
  'instances.insert',
  'instances.delete',
  'instances.aggregatedList',
  'zoneOperations.get',
  'zoneOperations.list',
  'regions.get',
  'firewalls.get',
  'firewalls.insert',
] as const;
export type Step = (typeof STEPS)[number] | 'oauth.token';

export type FaultSpec =
  /** Cut the connection without an answer. */
  | { kind: 'reset' }
  /** Answer with one of Compute's JSON error bodies. */
  | { kind: 'error'; error: FakeError };

export interface FakeCall {
  step: Step | 'unknown';
  method: string;
  path: string;
  query: Record<string, string>;
  zone?: string;
  instance?: string;
  status: number;
  /** Whether a bearer token was sent (the token itself is never recorded). */
  authorized: boolean;
}

export interface Timings {
  /** PROVISIONING -> STAGING after this many ms of fake time. */
  stagingAfterMs: number;
  /** STAGING -> RUNNING (and the NAT IP assigned) after this many ms. */
  runningAfterMs: number;
  /** An insert operation is DONE (or failed) after this many ms. */
  insertDoneAfterMs: number;
  /** A deleted instance stays STOPPING this long, then disappears and its operation is DONE. */
  deleteAfterMs: number;
}

export interface FakeComputeOptions {
  project?: string;
  zones?: string[];
  timings?: Partial<Timings>;
  /** `manual` (default): time moves only by `advance`. `real`: fake time follows the wall clock. */
  clock?: 'manual' | 'real';
  /** Require a bearer token issued by the fake's token endpoint on every API call. */
  requireAuth?: boolean;
}

interface StoredInstance {
  zone: string;
  body: ComputeInstance;
  createdAt: number;
  /** A status forced from outside (seeded, stopped); otherwise derived from the clock. */
  fixedStatus?: string;
  deletingAt?: number;
  address: boolean;
  id: string;
  hasDisk: boolean;
}

interface StoredOperation {
  op: ComputeOperation;
  doneAt: number;
  failure?: { code: string; message: string; httpStatus: number };
  /** Runs once when the operation completes successfully. */
  onDone?: () => void;
}

interface InsertFailure {
  zone?: string;
  code: string;
  message: string;
  httpStatus: number;
}

/**
 * A stateful, wire-level fake of the Compute Engine REST API (and of Google's OAuth token
 * endpoint) on loopback. Instances move PROVISIONING -> STAGING -> RUNNING on a clock the test
 * controls; operations finish, or fail, later; request IDs are deduplicated; the aggregated
 * list pages and reports unreachable zones; errors are Compute's own JSON bodies.
 */
export class FakeCompute {
  readonly project: string;
  readonly zones: string[];
  readonly timings: Timings;
  readonly calls: FakeCall[] = [];
  /** Service-account emails whose tokens were issued (never the tokens). */
  readonly tokensIssuedTo: string[] = [];

  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #instances = new Map<string, StoredInstance>();
  readonly #operations = new Map<string, StoredOperation>();
  readonly #requestIds = new Map<string, string>();
  readonly #firewalls = new Map<string, ComputeFirewall>();
  readonly #quotaLimits = new Map<string, number>();
  readonly #serviceAccounts = new Map<string, string>();
  readonly #tokens = new Set<string>();
  readonly #faults = new Map<string, { count: number; fault: FaultSpec }[]>();
  readonly #insertFailures: InsertFailure[] = [];
  readonly #gates = new Map<string, { waiters: (() => void)[]; reached: () => void; held: number }>();
  readonly #inFlight = new Map<string, number>();
  readonly #unreachableZones = new Set<string>();
  readonly #busyZones = new Set<string>();
  readonly #noCapacityZones = new Set<string>();
  #allUnreachable = false;
  #allBusy = false;
  #globalError: FakeError | undefined;
  #offset = 0;
  readonly #realStart = Date.now();
  readonly #clockMode: 'manual' | 'real';
  #seq = 0;
  requireAuth: boolean;
  url = '';

  private constructor(options: FakeComputeOptions) {
    this.project = options.project ?? 'fake-project';
    this.zones = options.zones ?? ['us-central1-a', 'us-central1-b', 'europe-west1-b'];
    this.timings = {
      stagingAfterMs: 1_000,
      runningAfterMs: 3_000,
      insertDoneAfterMs: 2_000,
      deleteAfterMs: 2_000,
      ...options.timings,
    };
    this.#clockMode = options.clock ?? 'manual';
    this.requireAuth = options.requireAuth ?? false;
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`fake error: ${err instanceof Error ? err.message : String(err)}`);
        }
      });
    });
    this.#server.on('connection', (s) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
  }

  static async start(options: FakeComputeOptions = {}): Promise<FakeCompute> {
    const fake = new FakeCompute(options);
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    fake.url = `http://127.0.0.1:${(fake.#server.address() as AddressInfo).port}`;
    return fake;
  }

  get tokenUrl(): string {
    return `${this.url}/token`;
  }

  async close(): Promise<void> {
    for (const g of this.#gates.values()) for (const w of g.waiters) w();
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  // ---- clock

  now(): number {
    return this.#realStart + this.#offset + (this.#clockMode === 'real' ? Date.now() - this.#realStart : 0);
  }

  /** Moves fake time forward. */
  advance(ms: number): void {
    this.#offset += ms;
  }

  // ---- control

  /** Fails the next `count` calls of `step` (in `zone`, or any) with `fault`. */
  failNext(step: Step, count: number, fault: FaultSpec, zone?: string): void {
    const key = zone ? `${step}@${zone}` : step;
    const list = this.#faults.get(key) ?? [];
    list.push({ count, fault });
    this.#faults.set(key, list);
  }

  /** The next insert (in `zone`, or any) is accepted, and its operation fails later with `code`. */
  failNextInsertAsync(failure: { code: string; message: string; httpStatus?: number; zone?: string }): void {
    this.#insertFailures.push({ httpStatus: 400, ...failure });
  }

  /** Holds every call of `step` until released (or the client goes away). */
  block(step: string): { reached: Promise<void>; readonly held: number; release: () => void } {
    let reached!: () => void;
    const reachedP = new Promise<void>((r) => {
      reached = r;
    });
    const gate = { waiters: [] as (() => void)[], reached, held: 0 };
    this.#gates.set(step, gate);
    return {
      reached: reachedP,
      get held() {
        return gate.held;
      },
      release: () => {
        if (this.#gates.get(step) === gate) this.#gates.delete(step);
        for (const w of gate.waiters.splice(0)) w();
      },
    };
  }

  inFlight(step?: string): number {
    if (step) return this.#inFlight.get(step) ?? 0;
    let n = 0;
    for (const v of this.#inFlight.values()) n += v;
    return n;
  }

  setUnreachable(on: boolean, zone?: string): void {
    if (!zone) this.#allUnreachable = on;
    else if (on) this.#unreachableZones.add(zone);
    else this.#unreachableZones.delete(zone);
  }

  setBusy(on: boolean, zone?: string): void {
    if (!zone) this.#allBusy = on;
    else if (on) this.#busyZones.add(zone);
    else this.#busyZones.delete(zone);
  }

  /** No capacity left: inserts there are refused with a quota 403 and the region's quota is full. */
  exhaustCapacity(zone?: string): void {
    for (const z of zone ? [zone] : this.zones) this.#noCapacityZones.add(z);
  }

  /** Every API call answers with this error (a revoked permission, a disabled API); undefined clears it. */
  setGlobalError(error: FakeError | undefined): void {
    this.#globalError = error;
  }

  setQuotaLimit(region: string, metric: string, limit: number): void {
    this.#quotaLimits.set(`${region}/${metric}`, limit);
  }

  /** Lets the token endpoint accept JWTs signed by this key for this account. */
  registerServiceAccount(email: string, publicKeyPem: string): void {
    this.#serviceAccounts.set(email, publicKeyPem);
  }

  reset(): void {
    this.#faults.clear();
    this.#insertFailures.length = 0;
    for (const [step, g] of this.#gates) {
      this.#gates.delete(step);
      for (const w of g.waiters.splice(0)) w();
    }
    this.#unreachableZones.clear();
    this.#busyZones.clear();
    this.#noCapacityZones.clear();
    this.#allBusy = false;
    this.#allUnreachable = false;
    this.#globalError = undefined;
  }

  clearCalls(): void {
    this.calls.length = 0;
  }

  // ---- state, behind the API's back

  /** Puts an instance straight into the store (RUNNING with an address unless told otherwise). */
  putInstance(
    zone: string,
    body: ComputeInstance,
    opts: { status?: string; address?: boolean; createdAt?: Date } = {},
  ): void {
    const bad = labelProblem(body.labels);
    if (bad) throw new Error(`fake: Compute would refuse ${zone}/${body.name}: ${bad}`);
    const stored: StoredInstance = {
      zone,
      body: structuredClone(body),
      createdAt: opts.createdAt?.getTime() ?? this.now() - this.timings.runningAfterMs,
      fixedStatus: opts.status ?? 'RUNNING',
      address: opts.address ?? true,
      id: this.#nextId(),
      hasDisk: true,
    };
    this.#instances.set(`${zone}/${body.name}`, stored);
  }

  /** The instance as the API would return it, or undefined. */
  instance(zone: string, name: string): ComputeInstance | undefined {
    this.#tick();
    const s = this.#instances.get(`${zone}/${name}`);
    return s ? this.#render(s) : undefined;
  }

  allInstances(): (ComputeInstance & { zone: string })[] {
    this.#tick();
    return [...this.#instances.values()].map((s) => ({ ...this.#render(s), zone: s.zone }));
  }

  /** Every boot disk still present, with the instance it belongs to. */
  disks(): { name: string; zone: string; instance: string }[] {
    this.#tick();
    return [...this.#instances.values()]
      .filter((s) => s.hasDisk)
      .map((s) => ({ name: s.body.name, zone: s.zone, instance: s.body.name }));
  }

  removeInstance(zone: string, name: string): void {
    this.#instances.delete(`${zone}/${name}`);
  }

  removeDisk(zone: string, name: string): void {
    const s = this.#instances.get(`${zone}/${name}`);
    if (s) s.hasDisk = false;
  }

  setStatus(zone: string, name: string, status: string | undefined): void {
    const s = this.#instances.get(`${zone}/${name}`);
    if (!s) throw new Error(`fake: no instance ${zone}/${name}`);
    if (status === undefined) delete s.fixedStatus;
    else s.fixedStatus = status;
  }

  setAddress(zone: string, name: string, present: boolean): void {
    const s = this.#instances.get(`${zone}/${name}`);
    if (!s) throw new Error(`fake: no instance ${zone}/${name}`);
    s.address = present;
  }

  /** What `instances.setLabels` (or a console edit) leaves; labels Compute would refuse throw. */
  setLabels(zone: string, name: string, labels: Record<string, string>): void {
    const s = this.#instances.get(`${zone}/${name}`);
    if (!s) throw new Error(`fake: no instance ${zone}/${name}`);
    const bad = labelProblem(labels);
    if (bad) throw new Error(`fake: Compute would refuse these labels on ${zone}/${name}: ${bad}`);
    s.body.labels = { ...labels };
  }

  operation(name: string): ComputeOperation | undefined {
    this.#tick();
    return this.#operations.get(name)?.op;
  }

  operations(): ComputeOperation[] {
    this.#tick();
    return [...this.#operations.values()].map((o) => o.op);
  }

  firewall(name: string): ComputeFirewall | undefined {
    return this.#firewalls.get(name);
  }

  putFirewall(rule: ComputeFirewall): void {
    this.#firewalls.set(rule.name, structuredClone(rule));
  }

  // ---- internals

  #nextId(): string {
    this.#seq += 1;
    return String(1_000_000_000_000 + this.#seq);
  }

  #regionOf(zone: string): string {
    return zone.slice(0, zone.lastIndexOf('-'));
  }

  #statusOf(s: StoredInstance): string {
    if (s.deletingAt !== undefined) return 'STOPPING';
    if (s.fixedStatus) return s.fixedStatus;
    const age = this.now() - s.createdAt;
    if (age < this.timings.stagingAfterMs) return 'PROVISIONING';
    if (age < this.timings.runningAfterMs) return 'STAGING';
    return 'RUNNING';
  }

  #render(s: StoredInstance): ComputeInstance {
    const status = this.#statusOf(s);
    const b = structuredClone(s.body);
    const n = Number(s.id) % 250;
    const nics = (b.networkInterfaces ?? [{}]).map((nic, i) => {
      const out = { ...nic, networkIP: `10.128.0.${(n % 250) + 2}` };
      if (i === 0 && out.accessConfigs?.length) {
        out.accessConfigs = out.accessConfigs.map((ac, j) => {
          const copy = { ...ac };
          if (j === 0 && s.address && status === 'RUNNING') copy.natIP = `203.0.113.${(n % 250) + 1}`;
          else delete copy.natIP;
          return copy;
        });
      }
      if (!s.address) delete (out as { networkIP?: string }).networkIP;
      return out;
    });
    return {
      ...b,
      kind: 'compute#instance',
      id: s.id,
      status,
      zone: `${SELF}/projects/${this.project}/zones/${s.zone}`,
      selfLink: `${SELF}/projects/${this.project}/zones/${s.zone}/instances/${b.name}`,
      creationTimestamp: new Date(s.createdAt).toISOString(),
      networkInterfaces: nics,
    } as ComputeInstance;
  }

  /** Applies everything the clock made due: finished operations, finished deletions. */
  #tick(): void {
    const now = this.now();
    for (const stored of this.#operations.values()) {
      const op = stored.op;
      if (op.status === 'DONE') continue;
      if (now < stored.doneAt) {
        op.status = 'RUNNING';
        continue;
      }
      op.status = 'DONE';
      op.progress = 100;
      op.endTime = new Date(stored.doneAt).toISOString();
      if (stored.failure) {
        op.error = { errors: [{ code: stored.failure.code, message: stored.failure.message }] };
        op.httpErrorStatusCode = stored.failure.httpStatus;
        op.httpErrorMessage = stored.failure.httpStatus === 403 ? 'FORBIDDEN' : 'BAD REQUEST';
      } else {
        stored.onDone?.();
      }
    }
  }

  #newOperation(
    zone: string | undefined,
    type: string,
    targetLink: string,
    doneAfterMs: number,
    extra: { failure?: StoredOperation['failure']; onDone?: () => void } = {},
  ): ComputeOperation {
    const now = this.now();
    const name = `operation-${now}-${randomBytes(6).toString('hex')}`;
    const op: ComputeOperation & Record<string, unknown> = {
      kind: 'compute#operation',
      id: this.#nextId(),
      name,
      operationType: type,
      targetLink,
      status: doneAfterMs <= 0 ? 'DONE' : 'PENDING',
      progress: 0,
      insertTime: new Date(now).toISOString(),
      startTime: new Date(now).toISOString(),
      user: 'fake@example.iam.gserviceaccount.com',
      selfLink: zone
        ? `${SELF}/projects/${this.project}/zones/${zone}/operations/${name}`
        : `${SELF}/projects/${this.project}/global/operations/${name}`,
      ...(zone ? { zone: `${SELF}/projects/${this.project}/zones/${zone}` } : {}),
    };
    const stored: StoredOperation = { op, doneAt: now + doneAfterMs, ...extra };
    if (doneAfterMs <= 0) {
      op.status = 'PENDING';
      this.#operations.set(name, stored);
      this.#tick();
    } else {
      this.#operations.set(name, stored);
    }
    return op;
  }

  #quota(region: string): ComputeQuota[] {
    const inRegion = [...this.#instances.values()].filter((s) => this.#regionOf(s.zone) === region);
    const full = this.zones.some((z) => this.#regionOf(z) === region && this.#noCapacityZones.has(z));
    const usage: Record<string, number> = {
      INSTANCES: inRegion.length,
      CPUS: inRegion.length * 2,
      IN_USE_ADDRESSES: inRegion.filter(
        (s) => (s.body.networkInterfaces?.[0]?.accessConfigs ?? []).length > 0,
      ).length,
    };
    const defaults: Record<string, number> = { INSTANCES: 24, CPUS: 48, IN_USE_ADDRESSES: 8 };
    return Object.keys(usage).map((metric) => {
      const limit = this.#quotaLimits.get(`${region}/${metric}`) ?? defaults[metric]!;
      return { metric, limit, usage: full ? limit : usage[metric]! };
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const raw = await readBody(req);
    if (url.pathname === '/token' && method === 'POST') {
      this.#token(raw, res);
      return;
    }
    const route = this.#route(method, url.pathname);
    const query = Object.fromEntries(url.searchParams);
    const auth = req.headers.authorization;
    const record: FakeCall = {
      step: route?.step ?? 'unknown',
      method,
      path: url.pathname,
      query,
      status: 0,
      authorized: typeof auth === 'string' && auth.startsWith('Bearer '),
      ...(route?.zone ? { zone: route.zone } : {}),
      ...(route?.instance ? { instance: route.instance } : {}),
    };
    this.calls.push(record);
    const send = (status: number, payload: unknown) => {
      record.status = status;
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(JSON.stringify(payload));
    };
    const fail = (e: FakeError) => send(e.status, e.body);
    const cut = () => {
      record.status = -1;
      req.socket.destroy();
    };

    if (!route) {
      fail(computeErrors.notFound(url.pathname));
      return;
    }
    const step = route.step;
    this.#inFlight.set(step, (this.#inFlight.get(step) ?? 0) + 1);
    try {
      const gate = this.#gates.get(step);
      if (gate) {
        gate.held += 1;
        gate.reached();
        await new Promise<void>((resolve) => {
          gate.waiters.push(resolve);
          req.socket.once('close', resolve);
        });
        gate.held -= 1;
        if (req.socket.destroyed) {
          record.status = -1;
          return;
        }
      }
      if (this.requireAuth) {
        const token = typeof auth === 'string' ? auth.replace(/^Bearer\s+/, '') : '';
        if (!this.#tokens.has(token)) {
          fail(computeErrors.unauthenticated());
          return;
        }
      }
      if (this.#globalError) {
        fail(this.#globalError);
        return;
      }
      if (this.#allUnreachable || (route.zone && this.#unreachableZones.has(route.zone))) {
        cut();
        return;
      }
      if (this.#allBusy || (route.zone && this.#busyZones.has(route.zone))) {
        fail(computeErrors.backendError());
        return;
      }
      const fault = this.#takeFault(step, route.zone);
      if (fault) {
        if (fault.kind === 'reset') cut();
        else fail(fault.error);
        return;
      }
      this.#tick();
      const result = this.#serve(step, route, query, raw);
      if ('error' in result) fail(result.error);
      else send(200, result.ok);
    } finally {
      this.#inFlight.set(step, (this.#inFlight.get(step) ?? 1) - 1);
    }
  }

  #takeFault(step: string, zone?: string): FaultSpec | undefined {
    for (const key of zone ? [`${step}@${zone}`, step] : [step]) {
      const list = this.#faults.get(key);
      const head = list?.[0];
      if (!list || !head) continue;
      head.count -= 1;
      if (head.count <= 0) list.shift();
      if (list.length === 0) this.#faults.delete(key);
      return head.fault;
    }
    return undefined;
  }

  #route(
    method: string,
    path: string,
  ): { step: Step; zone?: string; instance?: string; name?: string } | undefined {
    const prefix = `/compute/v1/projects/${this.project}/`;
    if (!path.startsWith(prefix)) return undefined;
    const parts = path.slice(prefix.length).split('/').map(decodeURIComponent);
    const [a, b, c, d] = parts;
    if (a === 'zones' && b && c === 'instances') {
      if (parts.length === 3 && method === 'POST') return { step: 'instances.insert', zone: b };
      if (parts.length === 4 && method === 'GET') return { step: 'instances.get', zone: b, instance: d! };
      if (parts.length === 4 && method === 'DELETE')
        return { step: 'instances.delete', zone: b, instance: d! };
    }
    if (a === 'zones' && b && c === 'operations') {
      if (parts.length === 3 && method === 'GET') return { step: 'zoneOperations.list', zone: b };
      if (parts.length === 4 && method === 'GET') return { step: 'zoneOperations.get', zone: b, name: d! };
    }
    if (a === 'aggregated' && b === 'instances' && parts.length === 2 && method === 'GET') {
      return { step: 'instances.aggregatedList' };
    }
    if (a === 'regions' && b && parts.length === 2 && method === 'GET')
      return { step: 'regions.get', name: b };
    if (a === 'global' && b === 'firewalls') {
      if (parts.length === 2 && method === 'POST') return { step: 'firewalls.insert' };
      if (parts.length === 3 && method === 'GET') return { step: 'firewalls.get', name: c! };
    }
    return undefined;
  }

  #serve(
    step: Step,
    route: { zone?: string; instance?: string; name?: string },
    query: Record<string, string>,
    raw: string,
  ): { ok: unknown } | { error: FakeError } {
    const p = this.project;
    const zone = route.zone;
    if (zone !== undefined && !this.zones.includes(zone)) {
      return { error: computeErrors.notFound(`projects/${p}/zones/${zone}`) };
    }
    switch (step) {
      case 'instances.get': {
        const s = this.#instances.get(`${zone}/${route.instance}`);
        if (!s)
          return { error: computeErrors.notFound(`projects/${p}/zones/${zone}/instances/${route.instance}`) };
        return { ok: this.#render(s) };
      }
      case 'instances.insert':
        return this.#insert(zone!, query.requestId, raw);
      case 'instances.delete':
        return this.#delete(zone!, route.instance!, query.requestId);
      case 'instances.aggregatedList':
        return this.#aggregated(query);
      case 'zoneOperations.get': {
        const op = this.#operations.get(route.name!);
        if (!op || op.op.zone !== `${SELF}/projects/${p}/zones/${zone}`) {
          return { error: computeErrors.notFound(`projects/${p}/zones/${zone}/operations/${route.name}`) };
        }
        return { ok: op.op };
      }
      case 'zoneOperations.list': {
        let clauses: ReturnType<typeof parseFilter>;
        try {
          clauses = parseFilter(query.filter);
        } catch (err) {
          return { error: computeErrors.badRequest(err instanceof Error ? err.message : String(err)) };
        }
        const items = [...this.#operations.values()]
          .map((o) => o.op)
          .filter((o) => o.zone === `${SELF}/projects/${p}/zones/${zone}`)
          .filter((o) => matches(o, clauses));
        const max = Number(query.maxResults ?? 500);
        return { ok: { kind: 'compute#operationList', items: items.slice(0, max) } };
      }
      case 'regions.get': {
        const region = route.name!;
        if (!this.zones.some((z) => this.#regionOf(z) === region)) {
          return { error: computeErrors.notFound(`projects/${p}/regions/${region}`) };
        }
        return { ok: { kind: 'compute#region', name: region, status: 'UP', quotas: this.#quota(region) } };
      }
      case 'firewalls.get': {
        const fw = this.#firewalls.get(route.name!);
        if (!fw) return { error: computeErrors.notFound(`projects/${p}/global/firewalls/${route.name}`) };
        return { ok: fw };
      }
      case 'firewalls.insert': {
        const dup = query.requestId ? this.#requestIds.get(query.requestId) : undefined;
        if (dup) return { ok: this.#operations.get(dup)!.op };
        const body = JSON.parse(raw) as ComputeFirewall;
        if (this.#firewalls.has(body.name)) {
          return { error: computeErrors.alreadyExists(`projects/${p}/global/firewalls/${body.name}`) };
        }
        this.#firewalls.set(body.name, body);
        const op = this.#newOperation(
          undefined,
          'insert',
          `${SELF}/projects/${p}/global/firewalls/${body.name}`,
          0,
        );
        if (query.requestId) this.#requestIds.set(query.requestId, op.name);
        return { ok: op };
      }
      default:
        return { error: computeErrors.notFound(step) };
    }
  }

  #insert(zone: string, requestId: string | undefined, raw: string): { ok: unknown } | { error: FakeError } {
    const p = this.project;
    if (requestId) {
      const dup = this.#requestIds.get(requestId);
      if (dup) return { ok: this.#operations.get(dup)!.op };
    }
    let body: ComputeInstance;
    try {
      body = JSON.parse(raw) as ComputeInstance;
    } catch {
      return { error: computeErrors.badRequest('Invalid JSON payload received.') };
    }
    if (typeof body.name !== 'string' || !/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/.test(body.name)) {
      return { error: computeErrors.badRequest(`Invalid value for field 'resource.name': '${body.name}'.`) };
    }
    const badLabels = labelProblem(body.labels);
    if (badLabels) {
      return { error: computeErrors.badRequest(`Invalid value for field 'resource.labels': ${badLabels}.`) };
    }
    const mt = body.machineType ?? '';
    if (!mt.startsWith(`zones/${zone}/machineTypes/`)) {
      return { error: computeErrors.badRequest(`Invalid value for field 'resource.machineType': '${mt}'.`) };
    }
    if (mt.endsWith('/machineTypes/no-such-type')) {
      return { error: computeErrors.notFound(`projects/${p}/${mt}`) };
    }
    const key = `${zone}/${body.name}`;
    if (this.#instances.has(key)) {
      return { error: computeErrors.alreadyExists(`projects/${p}/zones/${zone}/instances/${body.name}`) };
    }
    if (this.#noCapacityZones.has(zone)) {
      return { error: computeErrors.quotaExceeded('INSTANCES', this.#regionOf(zone), 0) };
    }
    const link = `${SELF}/projects/${p}/zones/${zone}/instances/${body.name}`;
    const idx = this.#insertFailures.findIndex((f) => !f.zone || f.zone === zone);
    let op: ComputeOperation;
    if (idx >= 0) {
      const [failure] = this.#insertFailures.splice(idx, 1);
      op = this.#newOperation(zone, 'insert', link, this.timings.insertDoneAfterMs, {
        failure: { code: failure!.code, message: failure!.message, httpStatus: failure!.httpStatus },
      });
    } else {
      this.#instances.set(key, {
        zone,
        body,
        createdAt: this.now(),
        address: true,
        id: this.#nextId(),
        hasDisk: true,
      });
      op = this.#newOperation(zone, 'insert', link, this.timings.insertDoneAfterMs);
    }
    if (requestId) this.#requestIds.set(requestId, op.name);
    return { ok: op };
  }

  #delete(zone: string, name: string, requestId: string | undefined): { ok: unknown } | { error: FakeError } {
    if (requestId) {
      const dup = this.#requestIds.get(requestId);
      if (dup) return { ok: this.#operations.get(dup)!.op };
    }
    const key = `${zone}/${name}`;
    const s = this.#instances.get(key);
    if (!s)
      return { error: computeErrors.notFound(`projects/${this.project}/zones/${zone}/instances/${name}`) };
    s.deletingAt ??= this.now();
    const link = `${SELF}/projects/${this.project}/zones/${zone}/instances/${name}`;
    const op = this.#newOperation(zone, 'delete', link, this.timings.deleteAfterMs, {
      onDone: () => {
        if (this.#instances.get(key) === s) this.#instances.delete(key);
      },
    });
    if (requestId) this.#requestIds.set(requestId, op.name);
    return { ok: op };
  }

  #aggregated(query: Record<string, string>): { ok: unknown } | { error: FakeError } {
    let clauses: ReturnType<typeof parseFilter>;
    try {
      clauses = parseFilter(query.filter);
    } catch (err) {
      return { error: computeErrors.badRequest(err instanceof Error ? err.message : String(err)) };
    }
    const partial = query.returnPartialSuccess === 'true';
    const unreachable = this.zones.filter((z) => this.#unreachableZones.has(z));
    if (unreachable.length > 0 && !partial) return { error: computeErrors.backendError() };
    const rows = [...this.#instances.values()]
      .filter((s) => !this.#unreachableZones.has(s.zone))
      .sort((a, b) => (a.zone + a.body.name).localeCompare(b.zone + b.body.name))
      .map((s) => ({ zone: s.zone, inst: this.#render(s) }))
      .filter((r) => matches(r.inst, clauses));
    const max = Math.min(Number(query.maxResults ?? 500) || 500, 500);
    const start = query.pageToken ? Number(Buffer.from(query.pageToken, 'base64url').toString()) : 0;
    if (!Number.isInteger(start) || start < 0)
      return { error: computeErrors.badRequest('Invalid page token.') };
    const page = rows.slice(start, start + max);
    const items: Record<string, unknown> = {};
    for (const z of this.zones) {
      if (this.#unreachableZones.has(z)) continue;
      const here = page.filter((r) => r.zone === z).map((r) => r.inst);
      items[`zones/${z}`] = here.length
        ? { instances: here }
        : {
            warning: {
              code: 'NO_RESULTS_ON_PAGE',
              message: "There are no results for scope 'zones/" + z + "' on this page.",
              data: [{ key: 'scope', value: `zones/${z}` }],
            },
          };
    }
    const next =
      start + max < rows.length ? Buffer.from(String(start + max)).toString('base64url') : undefined;
    return {
      ok: {
        kind: 'compute#instanceAggregatedList',
        items,
        ...(next ? { nextPageToken: next } : {}),
        ...(partial && unreachable.length ? { unreachables: unreachable.map((z) => `zones/${z}`) } : {}),
      },
    };
  }

  #token(raw: string, res: ServerResponse): void {
    const record: FakeCall = {
      step: 'oauth.token',
      method: 'POST',
      path: '/token',
      query: {},
      status: 0,
      authorized: false,
    };
    this.calls.push(record);
    const reply = (status: number, payload: unknown) => {
      record.status = status;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    const form = new URLSearchParams(raw);
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      reply(400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type.' });
      return;
    }
    const jwt = form.get('assertion') ?? '';
    const [h, pl, sig] = jwt.split('.');
    if (!h || !pl || !sig) {
      reply(400, { error: 'invalid_grant', error_description: 'Invalid JWT.' });
      return;
    }
    let claims: { iss?: string; aud?: string; scope?: string; exp?: number; iat?: number };
    try {
      claims = JSON.parse(Buffer.from(pl, 'base64url').toString());
    } catch {
      reply(400, { error: 'invalid_grant', error_description: 'Invalid JWT payload.' });
      return;
    }
    const key = claims.iss ? this.#serviceAccounts.get(claims.iss) : undefined;
    if (!key) {
      reply(400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
      return;
    }
    const ok = verify('RSA-SHA256', Buffer.from(`${h}.${pl}`), key, Buffer.from(sig, 'base64url'));
    const now = Math.floor(Date.now() / 1000);
    if (!ok || claims.aud !== TOKEN_AUDIENCE || !claims.exp || claims.exp < now) {
      reply(400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
      return;
    }
    const token = `ya29.fake-${createHash('sha256').update(randomBytes(16)).digest('hex')}`;
    this.#tokens.add(token);
    this.tokensIssuedTo.push(claims.iss!);
    reply(200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
  }

  /** Whether `token` was issued by this fake (for tests asserting it never leaked elsewhere). */
  issuedTokens(): string[] {
    return [...this.#tokens];
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
