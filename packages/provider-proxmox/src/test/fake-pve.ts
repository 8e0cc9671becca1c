import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type {
  FakeAgent,
  FakeAgentInterface,
  FakeCall,
  FakeFault,
  FakeStorage,
  FakeTask,
  FakeVm,
  FakeVolume,
} from './fake-state.js';
import { parseMultipart } from './multipart-parse.js';
import { type FakeTls, mintFakeTls } from './tls.js';

// A stateful, wire-level Proxmox VE API for tests. Every behaviour cites the section of the
// project's PVE API reference it follows (§n). Simplifications are named where they are made.

export interface FakePveOptions {
  /** pve-manager version; `8.x` switches the agent permission to VM.Monitor and memory below 8.1 to a number. */
  version?: string;
  nodes?: string[];
  storages?: Partial<FakeStorage>[];
  /** `current`: PVE >= 8.3 bodies carry `message`; `pre-8.3`: only the reason phrase has it (§0). */
  errorFormat?: 'current' | 'pre-8.3';
  /** Task durations per UPID type (qmclone, imgcopy, qmstart...), ms. Default 0: done at the next request. */
  taskMs?: Record<string, number>;
  /** Clones running at once per node beyond this fail on the storage lock. Default: no limit. */
  storageLockParallel?: number;
  /** 401 answers are delayed ~3 s by pveproxy (§1); default 0 to keep tests fast. */
  authFailureDelayMs?: number;
  /**
   * How long a cloned VM stays without an RRD entry (no name, `status: unknown` in
   * /cluster/resources): pvestatd reports every 10 s (§2). Default 0: at once.
   */
  rrdDelayMs?: number;
  /** Network interfaces the agent reports once a VM started; default one LAN IPv4 derived from the VMID. */
  agentOnStart?: (vmid: number) => FakeAgent;
  tls?: FakeTls;
}

export const ALL_PRIVS = [
  'VM.Audit',
  'VM.Clone',
  'VM.Allocate',
  'VM.Config.Disk',
  'VM.Config.CDROM',
  'VM.Config.CPU',
  'VM.Config.Memory',
  'VM.Config.Network',
  'VM.Config.Options',
  'VM.PowerMgmt',
  'VM.Monitor',
  'VM.GuestAgent.Audit',
  'Datastore.Audit',
  'Datastore.Allocate',
  'Datastore.AllocateSpace',
  'Datastore.AllocateTemplate',
  'Sys.Audit',
];

class HttpFail extends Error {
  constructor(
    readonly status: number,
    readonly text: string,
    readonly errors?: Record<string, string>,
    readonly emptyBody = false,
  ) {
    super(text);
  }
}

const fail = (status: number, text: string, errors?: Record<string, string>) =>
  new HttpFail(status, text, errors);
const paramFail = (errors: Record<string, string>) =>
  new HttpFail(400, 'Parameter verification failed.', errors);
const hex8 = (n: number) => n.toString(16).toUpperCase().padStart(8, '0');
const VMID_RE = /^[1-9][0-9]{2,8}$/;
/** §4: what a VM's routes answer when `node` holds no VM `vmid`. */
const noConfig = (node: string, vmid: number | string) =>
  `Configuration file 'nodes/${node}/qemu-server/${vmid}.conf' does not exist`;

/** A task as both task routes show it (§9), before each adds its own spelling of the status. */
function taskRecord(t: FakeTask): Record<string, unknown> {
  const e: Record<string, unknown> = {
    upid: t.upid,
    node: t.node,
    pid: t.pid,
    pstart: t.pstart,
    starttime: t.starttime,
    type: t.type,
    id: t.id,
    user: t.user,
  };
  if (t.tokenid) e.tokenid = t.tokenid;
  return e;
}
const DNS_NAME_RE = /^([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)(\.([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?))*$/;

interface Req {
  method: string;
  path: string;
  query: Record<string, string>;
  params: Record<string, string>;
  body: Buffer;
  contentType: string;
  tokenId: string;
  user: string;
  tokenName: string;
}

type Handler = (r: Req, m: RegExpExecArray) => unknown | Promise<unknown>;

export class FakePve {
  readonly version: string;
  readonly nodes: string[];
  readonly tls: FakeTls;
  readonly vms = new Map<number, FakeVm>();
  readonly storages: FakeStorage[];
  readonly tasks = new Map<string, FakeTask>();
  readonly calls: FakeCall[] = [];
  readonly faults: FakeFault[] = [];
  /** Every injected fault as it was served: its step, and its kind (or `status:<n>`, `delay`). */
  readonly injected: { step: string; kind: string }[] = [];
  readonly offline = new Set<string>();
  errorFormat: 'current' | 'pre-8.3';
  taskMs: Record<string, number>;
  storageLockParallel: number;
  authFailureDelayMs: number;
  rrdDelayMs: number;
  agentOnStart: (vmid: number) => FakeAgent;
  /** VM names whose every start halts at once, until `resetControls`. */
  readonly failStarts = new Set<string>();
  // `denied`: `<path> <privilege>` pairs an ACL takes away on one path (e.g. one VM's VM.Audit),
  // over the privileges the token holds everywhere else.
  readonly #tokens = new Map<string, { secret: string; privs: Set<string>; denied: Set<string> }>();
  readonly #volumes = new Map<string, Map<string, FakeVolume>>();
  readonly #held = new Set<string>();
  readonly #peakClones = new Map<string, number>();
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  #url = '';
  #pid = 1000;
  #routes: [string, RegExp, Handler][] = [];
  readonly #stepFaults: { step: string; count: number; fault: FakeFaultKind }[] = [];
  readonly #gates = new Map<string, (signal: AbortSignal) => Promise<void>>();
  readonly #arrivals = new Map<string, () => Promise<void>>();
  readonly #inFlight = new Map<string, number>();
  readonly #busy = new Set<string>();
  #down = false;

  constructor(o: FakePveOptions = {}) {
    this.version = o.version ?? '9.2.20';
    this.nodes = o.nodes ?? ['pve1'];
    this.tls = o.tls ?? mintFakeTls();
    this.errorFormat = o.errorFormat ?? 'current';
    this.taskMs = { ...(o.taskMs ?? {}) };
    this.storageLockParallel = o.storageLockParallel ?? Number.POSITIVE_INFINITY;
    this.authFailureDelayMs = o.authFailureDelayMs ?? 0;
    this.rrdDelayMs = o.rrdDelayMs ?? 0;
    this.agentOnStart =
      o.agentOnStart ??
      ((vmid) => [
        { name: 'lo', 'ip-addresses': [{ 'ip-address': '127.0.0.1', 'ip-address-type': 'ipv4', prefix: 8 }] },
        {
          name: 'eth0',
          'hardware-address': 'bc:24:11:00:00:01',
          'ip-addresses': [
            {
              'ip-address': `10.${(vmid >> 16) & 255}.${(vmid >> 8) & 255}.${vmid & 255}`,
              'ip-address-type': 'ipv4',
              prefix: 24,
            },
            { 'ip-address': 'fe80::1', 'ip-address-type': 'ipv6', prefix: 64 },
          ],
        },
      ]);
    const defaults: FakeStorage[] = [
      {
        id: 'local',
        type: 'dir',
        content: ['iso', 'vztmpl', 'backup'],
        shared: false,
        enabled: true,
        active: true,
        total: 100 * 2 ** 30,
        avail: 60 * 2 ** 30,
      },
      {
        id: 'local-lvm',
        type: 'lvmthin',
        content: ['images', 'rootdir'],
        shared: false,
        enabled: true,
        active: true,
        total: 200 * 2 ** 30,
        avail: 150 * 2 ** 30,
      },
    ];
    this.storages = o.storages
      ? o.storages.map((s) => ({
          type: 'dir',
          content: ['iso'],
          shared: false,
          enabled: true,
          active: true,
          total: 100 * 2 ** 30,
          avail: 60 * 2 ** 30,
          id: 'local',
          ...s,
        }))
      : defaults;
    this.#installRoutes();
  }

  // ---- lifecycle -------------------------------------------------------------------------

  async start(): Promise<string> {
    const server = createServer({ key: this.tls.key, cert: this.tls.cert }, (req, res) => {
      void this.#handle(req, res);
    });
    server.on('secureConnection', (s: Socket) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
    // Handshake failures (a client refusing our certificate) are the client's business.
    server.on('tlsClientError', () => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#server = server;
    this.#url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.#url;
  }

  get url(): string {
    return this.#url;
  }

  async stop(): Promise<void> {
    const s = this.#server;
    this.#server = undefined;
    if (!s) return;
    for (const sock of this.#sockets) sock.destroy();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  // ---- tokens (§1) -------------------------------------------------------------------------

  /** Adds an API token and returns the token file's content `USER@REALM!TOKENID=SECRET`. */
  addToken(id = 'root@pam!operator', privileges: string[] = ALL_PRIVS): string {
    const secret = randomUUID();
    this.#tokens.set(id, { secret, privs: new Set(privileges), denied: new Set() });
    return `${id}=${secret}`;
  }

  setPrivileges(id: string, privileges: string[]): void {
    const t = this.#tokens.get(id);
    if (!t) throw new Error(`no token ${id}`);
    t.privs = new Set(privileges);
  }

  /**
   * Takes `privilege` away from token `id` on `path` only (an ACL on `/vms/<vmid>`), as when an
   * administrator narrows a token: without VM.Audit there, the VM drops out of
   * `/cluster/resources` and its config and status answer 403 (§1, §2).
   */
  denyOn(id: string, path: string, privilege: string): void {
    const t = this.#tokens.get(id);
    if (!t) throw new Error(`no token ${id}`);
    t.denied.add(`${path} ${privilege}`);
  }

  /** Gives back what `denyOn` took away. */
  allowOn(id: string, path: string, privilege: string): void {
    this.#tokens.get(id)?.denied.delete(`${path} ${privilege}`);
  }

  #has(tokenId: string, path: string, privilege: string): boolean {
    const t = this.#tokens.get(tokenId);
    return t?.privs.has(privilege) === true && !t.denied.has(`${path} ${privilege}`);
  }

  revokeToken(id: string): void {
    this.#tokens.delete(id);
  }

  // ---- state helpers -------------------------------------------------------------------------

  /** A template VM on `node` with a boot disk of `diskGiB`, net0 and the agent unset. */
  addTemplate(
    vmid: number,
    node = this.nodes[0]!,
    o: { name?: string; diskGiB?: number; config?: Record<string, string | number> } = {},
  ): FakeVm {
    return this.addVm(vmid, node, {
      name: o.name ?? `tmpl-${vmid}`,
      template: 1,
      cores: 1,
      memory: this.#memory(1024),
      scsi0: `local-lvm:base-${vmid}-disk-0,iothread=1,size=${o.diskGiB ?? 8}G`,
      boot: 'order=scsi0;ide2;net0',
      net0: 'virtio=BC:24:11:00:00:00,bridge=vmbr0,firewall=1',
      scsihw: 'virtio-scsi-single',
      ...o.config,
    });
  }

  addVm(
    vmid: number,
    node: string,
    config: Record<string, string | number>,
    o: { running?: boolean; qmp?: string; agent?: FakeAgent } = {},
  ): FakeVm {
    const vm: FakeVm = {
      vmid,
      node,
      config: { ...config },
      running: o.running ?? false,
      qmp: o.qmp ?? (o.running ? 'running' : 'stopped'),
      agent: o.agent ?? 'down',
      rrd: true,
    };
    this.vms.set(vmid, vm);
    return vm;
  }

  vm(vmid: number): FakeVm {
    const vm = this.vms.get(vmid);
    if (!vm) throw new Error(`fake PVE: no VM ${vmid}`);
    return vm;
  }

  /** The VM named `name`, if any. */
  vmNamed(name: string): FakeVm | undefined {
    return [...this.vms.values()].find((v) => v.config.name === name);
  }

  /** Hibernate (§12): stopped, `lock: suspended`, a vmstate volume. */
  hibernate(vmid: number): void {
    const vm = this.vm(vmid);
    vm.running = false;
    vm.qmp = 'stopped';
    vm.config.lock = 'suspended';
    vm.config.vmstate = `local-lvm:vm-${vmid}-state-suspend-2026-01-01`;
  }

  setNodeOnline(node: string, online: boolean): void {
    if (online) this.offline.delete(node);
    else this.offline.add(node);
  }

  volumes(node: string, storage: string): Map<string, FakeVolume> {
    const st = this.#storage(storage);
    const key = st?.shared ? storage : `${node}/${storage}`;
    let m = this.#volumes.get(key);
    if (!m) {
      m = new Map();
      this.#volumes.set(key, m);
    }
    return m;
  }

  /** Tasks of `type` stay running until `releaseTasks(type)`. */
  holdTasks(type: string): void {
    this.#held.add(type);
  }

  releaseTasks(type: string): void {
    this.#held.delete(type);
    for (const t of this.tasks.values()) if (t.type === type) t.held = false;
  }

  /** The most clone tasks seen running at once on `node`. */
  peakClones(node: string): number {
    return this.#peakClones.get(node) ?? 0;
  }

  inject(f: FakeFault): void {
    this.faults.push(f);
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  /** The calls made so far that match `method` and a path pattern. */
  callsTo(method: string, path: RegExp): FakeCall[] {
    return this.calls.filter((c) => c.method === method && path.test(c.path));
  }

  #memory(mib: number): string | number {
    // memory is a property string since qemu-server 8.0.8 (PVE 8.1), a number before (§4).
    const [maj, min] = this.version.split('.').map(Number) as [number, number];
    return maj > 8 || (maj === 8 && min >= 1) ? String(mib) : mib;
  }

  #storage(id: string): FakeStorage | undefined {
    return this.storages.find((s) => s.id === id);
  }

  // ---- tasks (§9) -------------------------------------------------------------------------

  #task(r: Req, node: string, type: string, id: string, finish: () => string | undefined): string {
    const now = Date.now();
    const pid = ++this.#pid;
    const starttime = Math.floor(now / 1000);
    const upid = `UPID:${node}:${hex8(pid)}:${hex8(pid * 7)}:${hex8(starttime)}:${type}:${id}:${r.tokenId}:`;
    const task: FakeTask = {
      upid,
      node,
      type,
      id,
      user: r.user,
      tokenid: r.tokenName,
      pid,
      pstart: pid * 7,
      starttime,
      endAt: now + (this.taskMs[type] ?? 0),
      held: this.#held.has(type),
      status: 'running',
      finish,
    };
    this.tasks.set(upid, task);
    return upid;
  }

  /** Ends every task whose time has come; state changes are visible from the next request on. */
  tick(): void {
    const now = Date.now();
    for (const t of this.tasks.values()) {
      if (t.status !== 'running' || t.held || t.endAt > now) continue;
      t.status = 'stopped';
      t.endtime = Math.floor(now / 1000);
      let err: string | undefined;
      try {
        err = t.finish();
      } catch (e) {
        err = (e as Error).message;
      }
      t.exitstatus = err === undefined ? 'OK' : err.replace(/\s*\n\s*/g, ' ').trim();
    }
  }

  /**
   * The task's worker dies with its node (a crash, a reboot): it reads as stopped with status
   * `unexpected status` (§9) and its effects stay as they were, a clone's placeholder with its
   * `lock: clone` included.
   */
  abandonTask(upid: string): void {
    const t = this.tasks.get(upid);
    if (t?.status !== 'running') throw new Error(`fake PVE: no running task ${upid}`);
    t.status = 'stopped';
    t.endtime = Math.floor(Date.now() / 1000);
    t.exitstatus = 'unexpected status';
  }

  /** GET /nodes/{node}/tasks (pve-manager API2/Tasks.pm node_tasks): active first, then the archive newest first. */
  #taskList(r: Req, node: string): unknown[] {
    const q = r.params;
    const source = q.source ?? 'archive';
    if (!['archive', 'active', 'all'].includes(source))
      throw paramFail({
        source: `value '${source}' does not have a value in the enumeration 'archive, active, all'`,
      });
    const auditor = this.#tokens.get(r.tokenId)?.privs.has('Sys.Audit') === true;
    // Without Sys.Audit on the node a token sees its own tasks only.
    const visible = (t: FakeTask) => auditor || `${t.user}!${t.tokenid}` === r.tokenId;
    let count = 0;
    const start = Number(q.start ?? 0);
    let limit = Number(q.limit ?? 50);
    const keep = (t: FakeTask) => {
      if (t.node !== node || !visible(t)) return false;
      if (q.userfilter && !t.user.toLowerCase().includes(q.userfilter.toLowerCase())) return false;
      if (q.typefilter && t.type !== q.typefilter) return false;
      if (q.vmid && t.id !== q.vmid) return false;
      if (q.since !== undefined && t.starttime < Number(q.since)) return false;
      if (q.until !== undefined && t.starttime > Number(q.until)) return false;
      if (q.errors === '1' && t.exitstatus === 'OK') return false;
      if (count++ < start || limit <= 0) return false;
      limit--;
      return true;
    };
    const entry = (t: FakeTask) => {
      const e = taskRecord(t);
      if (t.status === 'running') e.status = 'RUNNING';
      else {
        e.status = t.exitstatus;
        e.endtime = t.endtime;
      }
      return e;
    };
    const all = [...this.tasks.values()];
    const out: unknown[] = [];
    if (source !== 'archive') for (const t of all) if (t.status === 'running' && keep(t)) out.push(entry(t));
    if (source !== 'active') {
      // The archive is ordered by start time, newest first, whatever order the tasks ended in
      // (a long clone started before a short one is listed after it).
      const done = all
        .filter((t) => t.status === 'stopped')
        .sort((a, b) => b.starttime - a.starttime || b.pid - a.pid);
      for (const t of done) if (keep(t)) out.push(entry(t));
    }
    return out;
  }

  #runningClones(node: string): number {
    let n = 0;
    for (const t of this.tasks.values())
      if (t.type === 'qmclone' && t.status === 'running' && t.node === node) n++;
    return n;
  }

  // ---- HTTP -------------------------------------------------------------------------

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'https://fake');
    const method = req.method ?? 'GET';
    const path = url.pathname.startsWith('/api2/json')
      ? url.pathname.slice('/api2/json'.length)
      : url.pathname;
    const query = Object.fromEntries(url.searchParams);
    if (this.#down) {
      // The whole API unreachable: the connection dies without an answer.
      req.socket.destroy();
      return;
    }
    const step = stepOf(method, path);
    const call: FakeCall = { method, path, query, status: 0, at: Date.now(), step };
    this.calls.push(call);
    this.tick();
    const closed = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) closed.abort();
    });
    this.#inFlight.set(step, (this.#inFlight.get(step) ?? 0) + 1);
    try {
      // A request on its way: sent with the token of that moment, authenticated on arrival.
      const arrival = this.#arrivals.get(step);
      if (arrival) await arrival();
      const r = await this.#authenticate(req, method, path, query, body);
      call.tokenId = r.tokenId;
      const gate = this.#gates.get(step);
      if (gate) await gate(closed.signal);
      this.#stepFault(step, path);
      await this.#fault(method, path);
      const data = await this.#route(r);
      this.tick();
      call.status = 200;
      this.#send(res, 200, 'OK', JSON.stringify({ data: data === undefined ? null : data }));
    } catch (err) {
      if (closed.signal.aborted) return;
      const f = err instanceof HttpFail ? err : new HttpFail(500, (err as Error).message);
      call.status = f.status;
      this.#sendError(res, f);
    } finally {
      this.#inFlight.set(step, (this.#inFlight.get(step) ?? 1) - 1);
    }
  }

  #stepFault(step: string, path: string): void {
    const node = /^\/nodes\/([^/]+)/.exec(path)?.[1];
    if (this.#busy.has('*') || (node && this.#busy.has(node))) throw faultFor('busy', path);
    const f = this.#stepFaults.find((x) => x.step === step);
    if (!f) return;
    if (--f.count <= 0) this.#stepFaults.splice(this.#stepFaults.indexOf(f), 1);
    this.injected.push({ step, kind: f.fault });
    throw faultFor(f.fault, path);
  }

  // ---- step-level controls (what a conformance harness drives) -----------------------------

  /** Fails the next `count` calls of `step` (a seam method name, see `stepOf`) with `fault`. */
  failStep(step: string, count: number, fault: FakeFaultKind): void {
    this.#stepFaults.push({ step, count, fault });
  }

  /** Every call of `step` awaits `wait(signal)` first; the signal aborts when the client hangs up. */
  blockStep(step: string, wait: (signal: AbortSignal) => Promise<void>): void {
    this.#gates.set(step, wait);
  }

  /**
   * Every call of `step` awaits `wait()` before it is authenticated, as a request still on its
   * way when the token is rotated (what `wait` may do) is then checked against the new one.
   */
  delayArrival(step: string, wait: () => Promise<void>): void {
    this.#arrivals.set(step, wait);
  }

  unblockStep(step?: string): void {
    if (step) this.#gates.delete(step);
    else this.#gates.clear();
  }

  /** Calls of `step` (or of every step) being answered right now. */
  inFlight(step?: string): number {
    if (step) return this.#inFlight.get(step) ?? 0;
    let n = 0;
    for (const v of this.#inFlight.values()) n += v;
    return n;
  }

  /** Every call (to `node`, or to any node) answers with a lock timeout. */
  setBusy(on: boolean, node = '*'): void {
    if (on) this.#busy.add(node);
    else this.#busy.delete(node);
  }

  /** The whole API is unreachable: connections are cut without an answer. */
  setDown(on: boolean): void {
    this.#down = on;
  }

  /** Clears faults, busy and offline flags, and gates (held calls go on). */
  resetControls(): void {
    this.failStarts.clear();
    this.#stepFaults.length = 0;
    this.faults.length = 0;
    this.#busy.clear();
    this.offline.clear();
    this.#down = false;
    this.#gates.clear();
    this.#arrivals.clear();
  }

  #send(
    res: ServerResponse,
    status: number,
    reason: string,
    body: string,
    extra: Record<string, string> = {},
  ): void {
    if (res.destroyed) return;
    res.writeHead(status, reason, {
      'content-type': 'application/json;charset=UTF-8',
      'content-length': Buffer.byteLength(body),
      ...extra,
    });
    res.end(body);
  }

  /** §0: reason phrase = first line; body by format; every answer >= 400 closes the connection. */
  #sendError(res: ServerResponse, f: HttpFail): void {
    const reason = (f.text.split('\n')[0] ?? '').replace(/[\r\n]/g, ' ');
    let body = '';
    if (!f.emptyBody) {
      const payload: Record<string, unknown> = { data: null };
      if (f.errors) payload.errors = f.errors;
      if (this.errorFormat === 'current') payload.message = f.text.endsWith('\n') ? f.text : `${f.text}\n`;
      body = JSON.stringify(payload);
    }
    this.#send(res, f.status, reason, body, { connection: 'close' });
  }

  async #fault(method: string, path: string): Promise<void> {
    const f = this.faults.find(
      (x) =>
        (!x.method || x.method === method) &&
        (typeof x.path === 'string' ? x.path === path : x.path.test(path)),
    );
    if (!f) return;
    if (f.times !== undefined && --f.times <= 0) this.faults.splice(this.faults.indexOf(f), 1);
    this.injected.push({
      step: stepOf(method, path),
      kind: f.status === 200 ? 'delay' : `status:${f.status}`,
    });
    if (f.hang) await new Promise(() => {});
    if (f.delayMs) await new Promise((r) => setTimeout(r, f.delayMs));
    if (f.status === 200) return;
    // 595/596 relay pveproxy's transport error: the reason only, no body (§11).
    const empty = f.status === 595 || f.status === 596 || f.body === '';
    throw new HttpFail(f.status, f.text ?? 'injected fault', undefined, empty);
  }

  async #authenticate(
    req: IncomingMessage,
    method: string,
    path: string,
    query: Record<string, string>,
    body: Buffer,
  ): Promise<Req> {
    const delayFail = async (text: string) => {
      // §1: 401 bodies are empty for json, and the answer is delayed.
      if (this.authFailureDelayMs) await new Promise((r) => setTimeout(r, this.authFailureDelayMs));
      return new HttpFail(401, text, undefined, true);
    };
    const h = req.headers.authorization ?? '';
    const m = /^PVEAPIToken[= ]([^;]+)/.exec(h);
    if (!m) throw await delayFail('No ticket');
    const value = decodeURIComponent(m[1]!.trim());
    const eq = value.lastIndexOf('=');
    const id = value.slice(0, eq);
    const secret = value.slice(eq + 1);
    const t = this.#tokens.get(id);
    if (eq <= 0 || !t || t.secret !== secret) throw await delayFail('Authentication failed!');
    // §0: a body on GET/DELETE is refused.
    if ((method === 'GET' || method === 'DELETE') && body.length > 0)
      throw fail(501, `Unexpected content for method '${method}'`);
    const contentType = String(req.headers['content-type'] ?? '');
    const params: Record<string, string> = { ...query };
    if (body.length && !path.endsWith('/upload')) {
      if (contentType.startsWith('application/x-www-form-urlencoded')) {
        for (const [k, v] of new URLSearchParams(body.toString('utf8'))) if (!(k in query)) params[k] = v;
      } else if (contentType.startsWith('application/json')) {
        for (const [k, v] of Object.entries(JSON.parse(body.toString('utf8')) as Record<string, unknown>))
          if (!(k in query)) params[k] = String(v);
      } else {
        throw fail(506, 'unsupported content type');
      }
    }
    if (path.endsWith('/upload') && req.headers['content-length'] === undefined)
      throw fail(501, 'upload without Content-Length');
    const bang = id.indexOf('!');
    return {
      method,
      path,
      query,
      params,
      body,
      contentType,
      tokenId: id,
      user: id.slice(0, bang),
      tokenName: id.slice(bang + 1),
    };
  }

  #priv(r: Req, path: string, ...anyOf: string[]): void {
    if (anyOf.some((p) => this.#has(r.tokenId, path, p))) return;
    throw fail(403, `Permission check failed (${path}, ${anyOf.join('|')})`);
  }

  #route(r: Req): unknown {
    for (const [method, re, h] of this.#routes) {
      if (method !== r.method) continue;
      const m = re.exec(r.path);
      if (m) {
        // §11: calls for an unreachable node are relayed as pveproxy's 595.
        const node = /^\/nodes\/([^/]+)/.exec(r.path)?.[1];
        if (node && this.offline.has(node)) throw new HttpFail(595, 'No route to host', undefined, true);
        if (node && !this.nodes.includes(node)) {
          throw fail(
            500,
            `hostname lookup '${node}' failed - failed to get address info for: ${node}: Name or service not known`,
          );
        }
        return h(r, m);
      }
    }
    throw fail(501, `Method '${r.method} ${r.path}' not implemented`);
  }

  #on(method: string, re: RegExp, h: Handler): void {
    this.#routes.push([method, re, h]);
  }

  /** §4: the config of `vmid` as seen from `node`'s directory. */
  #vmOn(node: string, vmidText: string): FakeVm {
    const vmid = Number(vmidText);
    const vm = this.vms.get(vmid);
    if (!vm || vm.node !== node) throw fail(500, noConfig(node, vmid));
    return vm;
  }

  /**
   * §9: a task on VM `vmid` of `node`. `work` runs on the VM when the task ends; a VM gone from
   * the node by then fails the task with `missing` (each call words it as its PVE route does).
   */
  #vmTask(
    r: Req,
    node: string,
    type: string,
    vmid: number,
    missing: string,
    work: (vm: FakeVm) => string | undefined,
  ): string {
    return this.#task(r, node, type, String(vmid), () => {
      const vm = this.vms.get(vmid);
      return !vm || vm.node !== node ? missing : work(vm);
    });
  }

  #lockOf(vm: FakeVm): string | undefined {
    return typeof vm.config.lock === 'string' ? vm.config.lock : undefined;
  }

  #installRoutes(): void {
    const N = '([a-zA-Z0-9-]+)';
    const V = '(\\d+)';

    // §2
    this.#on('GET', /^\/version$/, () => ({
      version: this.version,
      release: this.version.split('.').slice(0, 2).join('.'),
      repoid: 'f00dfeedc0ffee00',
    }));
    this.#on('GET', new RegExp(`^/nodes/${N}/status$`), (r, m) => {
      this.#priv(r, `/nodes/${m[1]}`, 'Sys.Audit');
      return {
        uptime: 12345,
        kversion: 'Linux 6.14.8-2-pve #1 SMP PREEMPT_DYNAMIC PMX 6.14.8-2 (2025-07-22T10:04Z) x86_64',
        pveversion: `pve-manager/${this.version}/f00dfeedc0ffee00`,
        cpu: 0.03,
        memory: { total: 64 * 2 ** 30, used: 8 * 2 ** 30, free: 56 * 2 ** 30, available: 56 * 2 ** 30 },
      };
    });
    this.#on('GET', /^\/cluster\/resources$/, (r) => this.#resources(r));
    // Outside the reference: the calling token's privileges, {path: {priv: 1}}.
    this.#on('GET', /^\/access\/permissions$/, (r) => {
      const t = this.#tokens.get(r.tokenId);
      const path = r.params.path ?? '/';
      return { [path]: Object.fromEntries([...(t?.privs ?? [])].map((p) => [p, 1])) };
    });

    // §4
    this.#on('GET', new RegExp(`^/nodes/${N}/qemu/${V}/config$`), (r, m) => {
      this.#priv(r, `/vms/${m[2]}`, 'VM.Audit');
      const vm = this.#vmOn(m[1]!, m[2]!);
      return { ...vm.config, digest: createHash('sha1').update(JSON.stringify(vm.config)).digest('hex') };
    });
    this.#on('PUT', new RegExp(`^/nodes/${N}/qemu/${V}/config$`), (r, m) => {
      this.#priv(
        r,
        `/vms/${m[2]}`,
        'VM.Config.Options',
        'VM.Config.CPU',
        'VM.Config.Memory',
        'VM.Config.Network',
        'VM.Config.CDROM',
        'VM.Config.Disk',
      );
      const vm = this.#vmOn(m[1]!, m[2]!);
      const { node: _n, vmid: _v, digest: _d, ...set } = r.params;
      if (Object.keys(set).length === 0) throw fail(500, 'no options specified');
      const lock = this.#lockOf(vm);
      if (lock) throw fail(500, `VM is locked (${lock})`);
      for (const [k, v] of Object.entries(set)) {
        if (k === 'tags') vm.config.tags = normaliseTags(v);
        else if (k === 'memory') vm.config.memory = this.#memory(Number(v));
        else if (['cores', 'sockets', 'template', 'onboot'].includes(k)) vm.config[k] = Number(v);
        else vm.config[k] = v;
      }
      return null;
    });

    // §3
    this.#on('POST', new RegExp(`^/nodes/${N}/qemu/${V}/clone$`), (r, m) => this.#clone(r, m[1]!, m[2]!));

    // §5
    this.#on('PUT', new RegExp(`^/nodes/${N}/qemu/${V}/resize$`), (r, m) => {
      const node = m[1]!;
      const vmid = Number(m[2]);
      const { disk, size } = r.params;
      if (!disk) throw paramFail({ disk: 'property is missing and it is not optional' });
      if (!size || !/^\+?\d+(\.\d+)?[KMGT]?$/.test(size))
        throw paramFail({ size: `value does not match the regex pattern` });
      return this.#vmTask(r, node, 'resize', vmid, noConfig(node, vmid), (vm) => {
        const lock = this.#lockOf(vm);
        if (lock) return `VM is locked (${lock})`;
        const drive = vm.config[disk];
        if (typeof drive !== 'string') return `disk '${disk}' does not exist`;
        if (/media=cdrom/.test(drive)) return "you can't resize a cdrom";
        const cur = Number(/size=(\d+)G/.exec(drive)?.[1] ?? 0);
        const n = Number(/\d+/.exec(size)?.[0]);
        const want = size.startsWith('+') ? cur + n : n;
        if (want < cur) return 'shrinking disks is not supported';
        vm.config[disk] = drive.replace(/size=\d+G/, `size=${want}G`);
        return undefined;
      });
    });

    // §6
    this.#on('POST', new RegExp(`^/nodes/${N}/qemu/${V}/status/start$`), (r, m) => {
      const node = m[1]!;
      const vmid = Number(m[2]);
      this.#priv(r, `/vms/${vmid}`, 'VM.PowerMgmt');
      return this.#vmTask(r, node, 'qmstart', vmid, noConfig(node, vmid), (vm) => {
        if (Number(vm.config.template) === 1) return "you can't start a vm if it's a template";
        const lock = this.#lockOf(vm);
        if (lock && lock !== 'suspended') return `VM is locked (${lock})`;
        if (vm.running) return `VM ${vmid} already running`;
        const iso = /^([^:,]+):(iso\/[^,]+)/.exec(String(vm.config.ide2 ?? ''));
        if (iso && !this.volumes(node, iso[1]!).has(iso[2]!))
          return `volume '${iso[1]}:${iso[2]}' does not exist`;
        if (lock === 'suspended') {
          delete vm.config.lock;
          delete vm.config.vmstate;
        }
        vm.running = true;
        vm.qmp = 'running';
        vm.agent = this.agentOnStart(vmid);
        // A guest told to halt at once: the start task succeeds and the VM is stopped again.
        if (this.failStarts.has(String(vm.config.name))) {
          vm.running = false;
          vm.qmp = 'stopped';
        }
        return undefined;
      });
    });
    this.#on('POST', new RegExp(`^/nodes/${N}/qemu/${V}/status/stop$`), (r, m) => {
      const node = m[1]!;
      const vmid = Number(m[2]);
      this.#priv(r, `/vms/${vmid}`, 'VM.PowerMgmt');
      const missing = `unable to find configuration file for VM ${vmid} on node '${node}'`;
      return this.#vmTask(r, node, 'qmstop', vmid, missing, (vm) => {
        const lock = this.#lockOf(vm);
        if (lock) return `VM is locked (${lock})`;
        vm.running = false; // not running: task OK, no-op
        vm.qmp = 'stopped';
        return undefined;
      });
    });
    this.#on('GET', new RegExp(`^/nodes/${N}/qemu/${V}/status/current$`), (r, m) => {
      this.#priv(r, `/vms/${m[2]}`, 'VM.Audit');
      const vm = this.#vmOn(m[1]!, m[2]!);
      const out: Record<string, unknown> = {
        vmid: vm.vmid,
        status: vm.running ? 'running' : 'stopped',
        qmpstatus: vm.running ? vm.qmp : 'stopped',
        name: vm.config.name ?? `VM ${vm.vmid}`,
        cpus: vm.config.cores ?? 1,
        maxmem: Number(vm.config.memory ?? 512) * 2 ** 20,
        uptime: vm.running ? 42 : 0,
        ha: { managed: 0 },
      };
      if (vm.running) out.pid = 4242;
      if (vm.config.lock) out.lock = vm.config.lock;
      if (vm.config.tags) out.tags = vm.config.tags;
      if (Number(vm.config.template) === 1) out.template = 1;
      if (vm.config.agent !== undefined && /^(1|enabled=1)/.test(String(vm.config.agent))) out.agent = 1;
      return out;
    });

    // §7
    this.#on('DELETE', new RegExp(`^/nodes/${N}/qemu/${V}$`), (r, m) => {
      this.#priv(r, `/vms/${m[2]}`, 'VM.Allocate');
      const node = m[1]!;
      const vm = this.#vmOn(node, m[2]!);
      if (vm.running) throw fail(500, `VM ${vm.vmid} is running - destroy failed`);
      const lock = this.#lockOf(vm);
      // No sync lock check: a locked VM gets a task that fails.
      if (lock && lock !== 'suspended')
        return this.#task(r, node, 'qmdestroy', String(vm.vmid), () => `VM is locked (${lock})`);
      vm.config = { lock: 'destroyed' };
      vm.rrd = false;
      return this.#task(r, node, 'qmdestroy', String(vm.vmid), () => {
        this.vms.delete(vm.vmid);
        return undefined;
      });
    });

    // §8
    this.#on('GET', new RegExp(`^/nodes/${N}/qemu/${V}/agent/network-get-interfaces$`), (r, m) => {
      const pve9 = Number(this.version.split('.')[0]) >= 9;
      if (pve9) this.#priv(r, `/vms/${m[2]}`, 'VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted');
      else this.#priv(r, `/vms/${m[2]}`, 'VM.Monitor');
      const vm = this.#vmOn(m[1]!, m[2]!);
      if (vm.config.agent === undefined) throw fail(500, 'No QEMU guest agent configured');
      if (!vm.running) throw fail(500, `VM ${vm.vmid} is not running`);
      if (vm.agent === 'down' || vm.qmp !== 'running') throw fail(500, 'QEMU guest agent is not running');
      return { result: vm.agent };
    });

    // §9
    this.#on('GET', new RegExp(`^/nodes/${N}/tasks/([^/]+)/status$`), (_r, m) => {
      const upid = decodeURIComponent(m[2]!);
      if (
        !/^UPID:[a-zA-Z0-9-]+:[0-9A-F]{8}:[0-9A-F]{8,9}:[0-9A-F]{8}:[^:\s/]+:[^:\s/]*:[^:\s/]+:$/.test(upid)
      ) {
        throw paramFail({ upid: 'unable to parse worker upid' });
      }
      const t = this.tasks.get(upid);
      if (!t) throw fail(400, 'no such task');
      // Here `running`/`stopped` with the exit status beside it; the listing folds the two into one.
      const out: Record<string, unknown> = { ...taskRecord(t), status: t.status };
      if (t.status === 'stopped') out.exitstatus = t.exitstatus;
      return out;
    });

    this.#on('GET', new RegExp(`^/nodes/${N}/tasks$`), (r, m) => this.#taskList(r, m[1]!));

    // §10
    this.#on('GET', new RegExp(`^/nodes/${N}/storage/([^/]+)/status$`), (r, m) => {
      this.#priv(r, `/storage/${m[2]}`, 'Datastore.Audit', 'Datastore.AllocateSpace');
      const st = this.#storage(m[2]!);
      if (!st) throw paramFail({ storage: 'No such storage.' });
      const on = st.enabled && st.active;
      return {
        type: st.type,
        content: st.content.join(','),
        shared: st.shared ? 1 : 0,
        enabled: st.enabled ? 1 : 0,
        active: on ? 1 : 0,
        total: on ? st.total : 0,
        used: on ? st.total - st.avail : 0,
        avail: on ? st.avail : 0,
      };
    });
    this.#on('GET', new RegExp(`^/nodes/${N}/storage/([^/]+)/content$`), (r, m) => {
      this.#priv(r, `/storage/${m[2]}`, 'Datastore.Audit', 'Datastore.AllocateSpace');
      const st = this.#storage(m[2]!);
      if (!st) throw fail(500, `storage '${m[2]}' does not exist`);
      const want = r.params.content;
      return [...this.volumes(m[1]!, st.id)]
        .filter(([name]) => !want || name.startsWith(`${want}/`))
        .map(([name, v]) => ({
          volid: `${st.id}:${name}`,
          content: name.split('/')[0],
          format: 'iso',
          size: v.size,
          ctime: v.ctime,
        }));
    });
    this.#on('POST', new RegExp(`^/nodes/${N}/storage/([^/]+)/upload$`), (r, m) =>
      this.#upload(r, m[1]!, m[2]!),
    );
    this.#on('DELETE', new RegExp(`^/nodes/${N}/storage/([^/]+)/content/(.+)$`), (r, m) => {
      const node = m[1]!;
      const storage = m[2]!;
      const volume = decodeURIComponent(m[3]!);
      const st = this.#storage(storage);
      if (!st) throw fail(500, `storage '${storage}' does not exist`);
      const colon = volume.indexOf(':');
      const volname = colon >= 0 ? volume.slice(colon + 1) : volume;
      if (colon >= 0 && volume.slice(0, colon) !== storage)
        throw paramFail({ volume: `storage ID mismatch (${volume.slice(0, colon)} != ${storage})` });
      if (!/^(iso|vztmpl)\/[^/]+\.(iso|img|tar\.[gx]z|tar\.zst)$/i.test(volname))
        throw fail(500, `unable to parse directory volume name '${volname}'`);
      this.#priv(r, `/storage/${storage}`, 'Datastore.Allocate');
      return this.#task(r, node, 'imgdel', `${storage}`, () => {
        // A missing file still ends OK (only a warning in the log).
        this.volumes(node, storage).delete(volname);
        return undefined;
      });
    });
  }

  #resources(r: Req): unknown[] {
    const type = r.params.type;
    if (type && type !== 'vm') return [];
    // VMs the token cannot audit are left out, silently (§2).
    const audited = [...this.vms.values()].filter((vm) =>
      this.#has(r.tokenId, `/vms/${vm.vmid}`, 'VM.Audit'),
    );
    return audited.map((vm) => {
      const e: Record<string, unknown> = {
        id: `qemu/${vm.vmid}`,
        vmid: vm.vmid,
        node: vm.node,
        type: 'qemu',
      };
      if (!vm.rrd && vm.rrdAt !== undefined && vm.rrdAt <= Date.now()) vm.rrd = true;
      if (this.offline.has(vm.node) || !vm.rrd) {
        e.status = 'unknown';
      } else {
        e.status = vm.running ? vm.qmp : 'stopped';
        e.name = vm.config.name ?? `VM ${vm.vmid}`;
        e.template = Number(vm.config.template) === 1 ? 1 : 0;
        e.maxcpu = Number(vm.config.cores ?? 1);
        e.maxmem = Number(vm.config.memory ?? 512) * 2 ** 20;
      }
      if (vm.config.lock) e.lock = vm.config.lock;
      if (vm.config.tags) e.tags = vm.config.tags;
      return e;
    });
  }

  #clone(r: Req, node: string, srcText: string): string {
    const src = Number(srcText);
    this.#priv(r, `/vms/${src}`, 'VM.Clone');
    const { newid, name, description, target } = r.params;
    if (newid === undefined) throw paramFail({ newid: 'property is missing and it is not optional' });
    if (!/^\d+$/.test(newid)) throw paramFail({ newid: `type check ('integer') failed - got '${newid}'` });
    if (!VMID_RE.test(newid))
      throw paramFail({ newid: 'invalid format - value does not look like a valid VM ID\n' });
    if (name !== undefined && !DNS_NAME_RE.test(name))
      throw paramFail({ name: 'invalid format - value does not look like a valid DNS name\n' });
    if (target !== undefined && !this.nodes.includes(target))
      throw fail(500, `no such cluster node '${target}'`);
    const source = this.#vmOn(node, srcText);
    const srcLock = this.#lockOf(source);
    if (srcLock) throw fail(500, `VM is locked (${srcLock})`);
    const id = Number(newid);
    const taken = this.vms.get(id);
    if (taken && taken.node === node)
      throw fail(500, `unable to create VM ${id}: config file already exists`);
    const dest = target ?? node;
    const running = this.#runningClones(node) + 1;
    this.#peakClones.set(node, Math.max(this.peakClones(node), running));
    const storageLocked = running > this.storageLockParallel;
    if (!taken) {
      // The placeholder: a comment line and the clone lock, no name, no RRD entry yet (§3, §2).
      this.vms.set(id, {
        vmid: id,
        node,
        config: { description: ' qmclone temporary file', lock: 'clone' },
        running: false,
        qmp: 'stopped',
        agent: 'down',
        rrd: false,
      });
    }
    return this.#task(r, node, 'qmclone', String(src), () => {
      if (taken)
        return `clone failed: close (rename) atomic file '/etc/pve/nodes/${node}/qemu-server/${id}.conf' failed: File exists`;
      if (storageLocked) {
        this.vms.delete(id);
        return "clone failed: cfs-lock 'storage-local-lvm' error: got lock request timeout";
      }
      const cfg: Record<string, string | number> = {};
      for (const [k, v] of Object.entries(source.config)) {
        if (k === 'template' || k === 'lock' || k === 'digest') continue;
        cfg[k] =
          typeof v === 'string' ? v.replace(`base-${src}-disk-`, `base-${src}-disk-0/vm-${id}-disk-`) : v;
        if (/^net\d+$/.test(k))
          cfg[k] = String(v).replace(/^(\w+)=([0-9A-F:]{17})/i, (_s, model) => `${model}=${randomMac(id)}`);
      }
      cfg.name = name ?? `Copy-of-VM-${source.config.name ?? src}`;
      if (description) cfg.description = description;
      const vm: FakeVm = {
        vmid: id,
        node: dest,
        config: cfg,
        running: false,
        qmp: 'stopped',
        agent: 'down',
        rrd: this.rrdDelayMs === 0,
      };
      if (!vm.rrd) vm.rrdAt = Date.now() + this.rrdDelayMs;
      this.vms.set(id, vm);
      return undefined;
    });
  }

  #upload(r: Req, node: string, storage: string): string {
    this.#priv(r, `/storage/${storage}`, 'Datastore.AllocateTemplate');
    const parts = parseMultipart(r.body, r.contentType);
    if (!parts) throw fail(500, 'unable to parse multipart upload');
    const fields: Record<string, string> = {};
    let file: { filename: string; data: Buffer } | undefined;
    for (const p of parts) {
      if (p.filename === undefined) {
        if (file) continue; // fields after the file are never read
        if (['content', 'checksum-algorithm', 'checksum'].includes(p.name))
          fields[p.name] = p.data.toString('utf8');
        continue;
      }
      if (p.name !== 'filename')
        throw fail(500, `wrong field name '${p.name}' for file upload, expected 'filename'`);
      file = { filename: p.filename, data: p.data };
    }
    if (r.query.tmpfilename !== undefined)
      throw paramFail({
        tmpfilename: 'property is not defined in schema and the schema does not allow additional properties',
      });
    const st = this.#storage(storage);
    if (!st) throw fail(500, `storage '${storage}' does not exist`);
    if (!st.enabled) throw fail(500, `storage '${storage}' is disabled`);
    if (st.type !== 'dir' && st.type !== 'nfs' && st.type !== 'cifs')
      throw fail(500, `can't upload to storage type '${st.type}'`);
    const content = fields.content;
    if (!content) throw paramFail({ content: 'property is missing and it is not optional' });
    if (!['iso', 'vztmpl', 'import'].includes(content))
      throw paramFail({
        content: `value '${content}' does not have a value in the enumeration 'iso, vztmpl, import'`,
      });
    if (!file) throw paramFail({ filename: 'property is missing and it is not optional' });
    const filename = file.filename.replace(/^.*[/\\]/, '').replace(/[^a-zA-Z0-9_.-]/g, '_');
    if (content === 'iso' && !/\.(iso|img)$/i.test(filename))
      throw paramFail({ filename: 'wrong file extension' });
    if (!st.content.includes(content))
      throw fail(500, `storage '${storage}' does not support '${content}' content`);
    if ((fields.checksum === undefined) !== (fields['checksum-algorithm'] === undefined)) {
      throw paramFail({ checksum: "'checksum' and 'checksum-algorithm' require each other" });
    }
    const data = new Uint8Array(file.data);
    const algo = fields['checksum-algorithm'];
    const expect = fields.checksum;
    return this.#task(r, node, 'imgcopy', '', () => {
      if (algo && expect) {
        const got = createHash(algo).update(data).digest('hex');
        if (got !== expect) return `checksum mismatch: got '${got}' != expect '${expect}'`;
      }
      // An existing file is overwritten; the volume exists only once the task ended.
      this.volumes(node, storage).set(`${content}/${filename}`, {
        size: data.length,
        ctime: Math.floor(Date.now() / 1000),
        data,
      });
      return undefined;
    });
  }
}

/** The seam method a request belongs to: the step names the call log and the controls use. */
export function stepOf(method: string, path: string): string {
  const table: [string, RegExp, string][] = [
    ['GET', /^\/cluster\/resources$/, 'clusterResources'],
    ['GET', /^\/version$/, 'version'],
    ['GET', /^\/access\/permissions$/, 'permissions'],
    ['GET', /^\/nodes\/[^/]+\/status$/, 'nodeStatus'],
    ['GET', /^\/nodes\/[^/]+\/qemu\/\d+\/config$/, 'vmConfig'],
    ['PUT', /^\/nodes\/[^/]+\/qemu\/\d+\/config$/, 'setVmConfig'],
    ['POST', /^\/nodes\/[^/]+\/qemu\/\d+\/clone$/, 'cloneVm'],
    ['PUT', /^\/nodes\/[^/]+\/qemu\/\d+\/resize$/, 'resizeDisk'],
    ['POST', /^\/nodes\/[^/]+\/qemu\/\d+\/status\/start$/, 'startVm'],
    ['POST', /^\/nodes\/[^/]+\/qemu\/\d+\/status\/stop$/, 'stopVm'],
    ['GET', /^\/nodes\/[^/]+\/qemu\/\d+\/status\/current$/, 'vmStatus'],
    ['DELETE', /^\/nodes\/[^/]+\/qemu\/\d+$/, 'destroyVm'],
    ['GET', /^\/nodes\/[^/]+\/qemu\/\d+\/agent\/network-get-interfaces$/, 'agentInterfaces'],
    ['GET', /^\/nodes\/[^/]+\/tasks\/[^/]+\/status$/, 'taskStatus'],
    ['GET', /^\/nodes\/[^/]+\/tasks$/, 'activeTasks'],
    ['GET', /^\/nodes\/[^/]+\/storage\/[^/]+\/status$/, 'storageStatus'],
    ['GET', /^\/nodes\/[^/]+\/storage\/[^/]+\/content$/, 'storageContent'],
    ['POST', /^\/nodes\/[^/]+\/storage\/[^/]+\/upload$/, 'uploadIso'],
    ['DELETE', /^\/nodes\/[^/]+\/storage\/[^/]+\/content\/.+$/, 'deleteVolume'],
  ];
  return table.find(([m, re]) => m === method && re.test(path))?.[2] ?? `${method} ${path}`;
}

export type FakeFaultKind = 'unreachable' | 'busy' | 'not-found' | 'internal' | 'out-of-capacity';

/** A fault class as PVE would answer it on `path` (texts from the reference sections). */
function faultFor(kind: FakeFaultKind, path: string): HttpFail {
  const vm = /^\/nodes\/([^/]+)\/qemu\/(\d+)/.exec(path);
  const storage = /\/storage\/([^/]+)/.exec(path)?.[1] ?? 'local';
  switch (kind) {
    case 'unreachable': // §11
      return new HttpFail(595, 'No route to host', undefined, true);
    case 'busy': // §4 flock timeout
      return fail(500, `can't lock file '/var/lock/qemu-server/lock-${vm?.[2] ?? '0'}.conf' - got timeout`);
    case 'not-found': // §4 / §10
      return vm ? fail(500, noConfig(vm[1]!, vm[2]!)) : fail(500, `storage '${storage}' does not exist`);
    case 'out-of-capacity':
      return fail(
        500,
        `lvcreate 'pve/vm-${vm?.[2] ?? '0'}-disk-0' error: Volume group "pve" has insufficient free space`,
      );
    default:
      return fail(500, 'internal error (injected)');
  }
}

/** §13: split on , ; or space, lower-cased, sorted, de-duplicated, joined with `;`. */
function normaliseTags(v: string): string {
  const tags = v.split(/[,;\s]+/).filter(Boolean);
  for (const t of tags)
    if (!/^[a-z0-9_][a-z0-9_+.-]*$/i.test(t)) throw paramFail({ tags: `invalid characters in tag '${t}'` });
  return [...new Set(tags.map((t) => t.toLowerCase()))].sort().join(';');
}

function randomMac(seed: number): string {
  const b = [(seed >> 16) & 255, (seed >> 8) & 255, seed & 255].map((x) =>
    x.toString(16).toUpperCase().padStart(2, '0'),
  );
  return `BC:24:11:${b.join(':')}`;
}

export type { FakeAgent, FakeAgentInterface };
