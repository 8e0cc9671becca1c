import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { createOperatorLogger, providerLoggerFrom } from '../domain/logger.js';
import { textDestination } from '../domain/text-format.js';
import { createHttpProbe } from '../probe/http-probe.js';
import { down } from '../standalone/down.js';
import { startEchoServer } from '../standalone/echo-server.js';
import { LiveTable } from '../standalone/live-table.js';
import { formatIssue } from '../standalone/proxy-documents.js';
import { type RunningStandalone, startStandalone } from '../standalone/standalone.js';
import type { PoolView } from '../standalone/standalone-pools.js';
import { type ProxyRecord, readState, removeStaleTempFiles } from '../standalone/state-file.js';
import { StandaloneStatusPage } from '../standalone/status-page-data.js';
import {
  plainLine,
  plainPoolLine,
  plainProviderLine,
  poolRowOf,
  providerRowOf,
  renderPoolTable,
  renderProviderTable,
  renderTable,
  rowOf,
  type StatusRow,
} from '../standalone/status-table.js';
import { type RunningStatusPage, startStatusPage } from '../status-page/status-page-server.js';
import { egressThrough } from './check-gateway.js';
import type { Io } from './command.js';
import { FlagError } from './flag-error.js';
import { type JsonRecord, jsonLine, poolJson, providerJson, proxyJson } from './json-records.js';
import type { StandaloneFlags } from './standalone-flags.js';

const isAlive = (pid: number | undefined): boolean => {
  if (!pid || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);

/** The `curl -x` line for a Ready Proxy, and the URL it fetches. */
function curlFor(
  r: ProxyRecord,
  demoTarget?: string,
): { line: string; host: string; port: number; target: string } | undefined {
  if (!r.endpoint || r.status?.phase !== 'Ready') return undefined;
  const spec = r.spec as { probe?: { target?: string } };
  const target = spec.probe?.target ?? demoTarget;
  if (!target) return undefined;
  const host = r.endpoint.host.includes(':') ? `[${r.endpoint.host}]` : r.endpoint.host;
  const proxy = `http://${host}:${r.endpoint.port}`;
  return { line: `curl -x ${proxy} ${target}`, host: r.endpoint.host, port: r.endpoint.port, target };
}

/** Renders status as a live table (a terminal), a line per change (plain) or JSON lines. */
class StatusView {
  readonly #mode: 'table' | 'plain' | 'json';
  #last = new Map<string, string>();
  readonly #table: LiveTable;
  footer: string[] = [];

  constructor(
    private readonly io: Io,
    mode: StandaloneFlags['output'],
  ) {
    this.#mode = mode === 'auto' ? (io.isTTY ? 'table' : 'plain') : mode;
    this.#table = new LiveTable(io.out);
  }

  get mode() {
    return this.#mode;
  }

  update(records: ProxyRecord[]): void {
    const rows = records.map((r) => rowOf(r));
    if (this.#mode === 'table') {
      const width = this.io.columns;
      this.#table.draw([...renderTable(rows, width), ...this.footer], width);
      return;
    }
    const seen = new Set<string>();
    for (const [i, row] of rows.entries()) {
      seen.add(row.name);
      const record = records[i] as ProxyRecord;
      const text = this.#mode === 'json' ? JSON.stringify(proxyJson(record)) : plainLine(row);
      if (this.#last.get(row.name) === text) continue;
      this.#last.set(row.name, text);
      this.io.out(`${text}\n`);
    }
    for (const name of [...this.#last.keys()]) {
      if (seen.has(name)) continue;
      this.#last.delete(name);
      const [namespace, short] = name.includes('/') ? name.split('/', 2) : ['default', name];
      this.io.out(
        this.#mode === 'json'
          ? jsonLine({ type: 'proxy', namespace, name: short, phase: 'Deleted', deleting: false })
          : `${name} deleted\n`,
      );
    }
  }

  /** A message below the table, or a line of its own. */
  say(text: string, json: JsonRecord): void {
    if (this.#mode === 'json') this.io.out(jsonLine(json));
    else if (this.#mode === 'table') this.footer.push(text);
    else this.io.out(`${text}\n`);
  }

  /** A warning: on stderr, or (in json mode, which keeps stderr quiet) a record on stdout. */
  warn(text: string, json: JsonRecord): void {
    if (this.#mode === 'json') this.io.out(jsonLine(json));
    else this.io.err(`${text}\n`);
  }

  /** Stops redrawing: what follows is printed below the last table. */
  release(): void {
    this.#table.release();
  }

  /** Ctrl-C: the table stays as it is on screen and is not drawn again. */
  interrupted(): void {
    this.#table.stop();
  }

  static rows(records: ProxyRecord[]): StatusRow[] {
    return records.map((r) => rowOf(r));
  }
}

const notDeleting = (r: ProxyRecord) => r.deletionTimestamp === undefined;
const allReady = (records: ProxyRecord[]) =>
  records.filter(notDeleting).length > 0 &&
  records.filter(notDeleting).every((r) => r.status?.phase === 'Ready' && r.endpoint !== undefined);

/**
 * How the commands this prints are spelled: `egress-proxies` when installed, or what the caller
 * says runs it (`npm start` in a clone sets `npm run egress-proxies --`, where no bin is on PATH).
 */
export const SELF_COMMAND_ENV = 'EGRESS_PROXIES_COMMAND';
function selfCommand(): string {
  return process.env[SELF_COMMAND_ENV]?.trim() || 'egress-proxies';
}

/**
 * What stopped with `up` although the proxies keep running: each pool's gateway and the demo
 * target, so the curl lines printed earlier no longer answer. Says how to run a gateway alone
 * over the running members.
 */
export function stoppedWithUp(
  gateways: readonly (PoolView & { gateway: string })[],
  demoTarget: string | undefined,
  self: string,
): string[] {
  const lines: string[] = [];
  const gone = [
    ...gateways.map((g) => `the gateway ${g.gateway} of pool ${g.key}`),
    ...(demoTarget ? [`the demo target ${demoTarget}`] : []),
  ];
  if (gone.length === 0) return lines;
  lines.push(`${gone.join(' and ')} stopped with up: the curl lines above no longer answer.`);
  for (const g of gateways) {
    const members = g.members
      .filter((m) => m.ready && m.ip && m.port)
      .map((m) => `${m.name}=${m.ip?.includes(':') ? `[${m.ip}]` : m.ip}:${m.port}`);
    if (members.length === 0) continue;
    const listen = new URL(g.gateway).host;
    lines.push(
      `run the gateway alone over the running proxies: ${self} gateway --members ${members.join(',')} --listen ${listen}`,
    );
  }
  return lines;
}

/**
 * Why `up --once` cannot succeed however long it waits, known right after the first scan and
 * health round: a provider module that failed to load, or no valid Proxy in the files.
 */
function onceCannotSucceed(records: ProxyRecord[], loadFailures: number, issues: number): string | undefined {
  if (loadFailures > 0)
    return `${loadFailures === 1 ? 'a provider module' : `${loadFailures} provider modules`} failed to load (above); fix the providers file and run again`;
  if (records.filter(notDeleting).length === 0)
    return `no valid Proxy in the files${issues > 0 ? ` (${issues} problem${issues === 1 ? '' : 's'} listed above)` : ''}`;
  return undefined;
}

type EchoServer = Awaited<ReturnType<typeof startEchoServer>>;

/** One `up` run: what its steps share. */
interface UpSession {
  flags: StandaloneFlags;
  io: Io;
  stateDir: string;
  sa: RunningStandalone;
  view: StatusView;
  echo: EchoServer | undefined;
  display: LiveDisplay;
  /** How this program is run, for the commands it prints. */
  self: string;
  downHint: string;
  /** Whether pool member changes are already reported. */
  watching: boolean;
}

/** The state dir, created, when no other `up` holds it; stale temporary files removed. */
function claimStateDir(flags: StandaloneFlags): string {
  const stateDir = resolve(flags.stateDir);
  mkdirSync(stateDir, { recursive: true });
  const prior = readState(stateDir);
  if (prior && isAlive(prior.pid))
    throw new FlagError(
      `another up (pid ${prior.pid}) uses ${stateDir}; stop it or pass another --state-dir`,
    );
  removeStaleTempFiles(stateDir, isAlive);
  return stateDir;
}

/** The log goes to a file, so the terminal keeps the table. */
function openLog(flags: StandaloneFlags, stateDir: string) {
  const logFile = flags.logFile ?? join(stateDir, 'up.log');
  const file = pino.destination({ dest: logFile, sync: true, mkdir: true });
  const log = createOperatorLogger(flags.logLevel, flags.logFormat === 'text' ? textDestination(file) : file);
  return { log, logFile };
}

/** Starts reconciling the files; invalid documents are warned about once per change. */
async function startSession(
  flags: StandaloneFlags,
  stateDir: string,
  log: ReturnType<typeof createOperatorLogger>,
  echo: EchoServer | undefined,
  view: StatusView,
): Promise<RunningStandalone> {
  let lastIssues = '';
  try {
    return await startStandalone({
      proxyPaths: flags.files,
      providersPath: flags.providers,
      stateDir,
      workers: flags.workers,
      createConcurrency: flags.createConcurrency,
      createTimeoutMs: flags.createTimeoutMs,
      callTimeoutMs: flags.callTimeoutMs,
      gcIntervalMs: flags.gcIntervalMs,
      gcGraceMs: flags.gcGraceMs,
      healthIntervalMs: flags.healthIntervalMs,
      ...(flags.http ? { http: flags.http } : {}),
      ...(flags.gatewayHost !== undefined ? { gatewayHost: flags.gatewayHost } : {}),
      ...(flags.gatewayUsers ? { gatewayUsers: flags.gatewayUsers } : {}),
      ...(flags.gatewaySocks ? { gatewaySocks: flags.gatewaySocks } : {}),
      poolDrainTimeoutMs: flags.poolDrainTimeoutMs,
      ...(echo ? { defaultProbeTarget: echo.url } : {}),
      // A local proxy answers within milliseconds; a failed probe is retried soon.
      failedProbeRetryMs: 2000,
      pollIntervalMs: 1000,
      logger: log,
      providerLogger: providerLoggerFrom(log),
      extra: () => (echo ? { demoTarget: echo.url } : {}),
      onIssues: (issues) => {
        const text = issues.map(formatIssue).join('\n');
        if (text === lastIssues) return;
        lastIssues = text;
        for (const i of issues)
          view.warn(`invalid Proxy document: ${formatIssue(i)}`, { type: 'issue', message: formatIssue(i) });
      },
    });
  } catch (err) {
    await echo?.close();
    throw err;
  }
}

/**
 * The first round of the providers' health checks, said: a provider that cannot work (a missing
 * engine, an unwritable state dir) is named before any Proxy gets stuck on it. Returns how many
 * provider modules failed to load.
 */
function reportProviders(sa: RunningStandalone, view: StatusView): number {
  const loadFailures = sa.providers.failures();
  for (const f of loadFailures)
    view.warn(`cannot load ${f.message}`, {
      type: 'provider-load',
      provider: f.entry.name,
      module: f.module,
      message: f.message,
    });
  const failedNames = new Set(loadFailures.map((f) => f.entry.name));
  for (const p of sa.store.providerHealth()) {
    if (failedNames.has(p.name)) continue;
    const failing = p.status.targets?.filter((t) => !t.ready) ?? [];
    for (const t of failing)
      view.warn(
        `provider ${p.name}: ${t.target} is not ready (${t.reason}): ${t.message ?? ''}`,
        providerJson(p),
      );
    if (!p.status.targets && p.status.ready === false)
      view.warn(`provider ${p.name}: ${p.status.message ?? 'not ready'}`, providerJson(p));
  }
  return loadFailures.length;
}

interface LiveDisplay {
  redraw(): void;
  stop(): void;
}

/**
 * The status page on loopback (any free port), said with a curl line for its JSON. A page that
 * cannot start is a warning: `up` runs on without it.
 */
async function openStatusPage(
  sa: RunningStandalone,
  view: StatusView,
  io: Io,
): Promise<RunningStatusPage | undefined> {
  // Subscribed from now on, so events that come before the first page is opened are shown too.
  const source = new StandaloneStatusPage(sa.pools, sa.store);
  try {
    const page = await startStatusPage({
      host: '127.0.0.1',
      port: 0,
      snapshot: () => source.snapshot(),
      onClose: () => source.close(),
    });
    const api = `${page.url}api/status`;
    if (view.mode === 'json') io.out(jsonLine({ type: 'status-page', url: page.url, api }));
    else io.err(`status page: ${page.url} (its data: curl ${api})\n`);
    return page;
  } catch (err) {
    source.close();
    const error = err instanceof Error ? err.message : String(err);
    view.warn(`status page not started: ${error}`, { type: 'status-page', error });
    return undefined;
  }
}

/** Redraws the view on every change the store shows (at most every 100 ms) and on a resize. */
function liveDisplay(store: RunningStandalone['store'], view: StatusView, io: Io): LiveDisplay {
  let pending: NodeJS.Timeout | undefined;
  const redraw = () => {
    pending = undefined;
    view.update(store.records());
  };
  const unsubscribe = store.onDisplayChange(() => {
    pending ??= setTimeout(redraw, 100);
  });
  // The table shows how long a slow step has taken, so it is redrawn while one is running.
  const ticker = view.mode === 'table' ? setInterval(redraw, 1000) : undefined;
  // A resize reflows the table on screen: it is redrawn at once, cut to the new width.
  const unresize =
    view.mode === 'table'
      ? io.onResize?.(() => {
          clearTimeout(pending);
          redraw();
        })
      : undefined;
  redraw();
  return {
    redraw,
    stop: () => {
      unresize?.();
      unsubscribe();
      clearInterval(ticker);
      clearTimeout(pending);
    },
  };
}

/** All Proxies Ready: says so, shows the curl line (through a pool's gateway when there is one), and with `check` tries it. */
async function announceReady(s: UpSession, check: boolean): Promise<boolean> {
  const { sa, view, echo, display } = s;
  display.redraw();
  const records = sa.store.records().filter(notDeleting);
  const curl = records.map((r) => curlFor(r, echo?.url)).find((c) => c !== undefined);
  view.say(`all ${records.length} proxies are Ready.`, {
    type: 'ready',
    ready: true,
    proxies: records.length,
  });
  // One planning round first, so the gateway routes over every member that is Ready now.
  await sa.pools.step();
  const pool = sa.pools.views().find((p) => p.gateway);
  // From now on a member's cooldown (and its end) is a pool record, with `cooledDown` members.
  if (!s.watching)
    sa.pools.onMemberChange((c) =>
      view.say(
        `pool ${c.view.key}: member ${c.member} ${c.cooledDown ? `cooled down (${c.reason})` : 'back in rotation'}`,
        poolJson(c.view),
      ),
    );
  s.watching = true;
  if (pool?.gateway && echo) {
    const ok = await announcePool(view, { ...pool, gateway: pool.gateway }, echo.url, check);
    display.redraw();
    return ok;
  }
  if (curl) view.say(`try: ${curl.line}`, { type: 'curl', curl: curl.line });
  if (check && curl) {
    const r = await createHttpProbe({})(
      { host: curl.host, port: curl.port, target: curl.target, timeoutMs: 5000, retries: 2 },
      AbortSignal.timeout(20_000),
    );
    if (!r.ok) {
      view.say(`check failed: ${curl.line}: ${r.error}`, {
        type: 'check',
        ok: false,
        curl: curl.line,
        error: r.error,
      });
      return false;
    }
    view.say(`checked: ${curl.line} answered 200${r.egressIP ? `; the target saw ${r.egressIP}` : ''}`, {
      type: 'check',
      ok: true,
      curl: curl.line,
      ...(r.egressIP ? { egressIP: r.egressIP } : {}),
    });
  }
  display.redraw();
  return true;
}

/** `--once`: waits until all are Ready (then checks) or the timeout; resolves to the exit code. */
async function runOnce(s: UpSession, loadFailures: number): Promise<number> {
  const { sa, view, flags, io, display } = s;
  const store = sa.store;
  // What --once can never get past is said now, not after its whole timeout.
  const hopeless = onceCannotSucceed(store.records(), loadFailures, store.issues().length);
  if (hopeless) {
    view.say(`not Ready: ${hopeless}`, { type: 'ready', ready: false, error: hopeless });
    display.redraw();
    return 1;
  }
  const waitReady = async (deadline: number): Promise<boolean> => {
    while (Date.now() < deadline) {
      if (allReady(store.records())) return true;
      await new Promise((r) => setTimeout(r, 200));
    }
    return allReady(store.records());
  };
  const ready = await Promise.race([
    waitReady(Date.now() + flags.timeoutMs),
    io.interrupted.then(() => false),
  ]);
  if (ready) return (await announceReady(s, true)) ? 0 : 1;
  const stuck = store.records().filter((r) => notDeleting(r) && r.status?.phase !== 'Ready');
  const why =
    store.records().length === 0
      ? ['no valid Proxy in the files']
      : stuck.map(
          (r) =>
            `${r.namespace}/${r.name} is ${r.status?.phase ?? 'Pending'}: ${r.status?.message ?? 'not reconciled yet'}`,
        );
  for (const w of why)
    view.say(`not Ready after ${Math.round(flags.timeoutMs / 1000)}s: ${w}`, {
      type: 'ready',
      ready: false,
      error: w,
    });
  display.redraw();
  return 1;
}

/** Without --once: reconciles until Ctrl-C, announcing once when all are Ready. */
async function runUntilInterrupted(s: UpSession): Promise<number> {
  const { sa, view, io, display, downHint } = s;
  let announced = false;
  const watchReady = async () => {
    while (!announced) {
      if (allReady(sa.store.records())) {
        announced = true;
        await announceReady(s, false);
        view.say(`Ctrl-C stops reconciling and leaves the proxies running; \`${downHint}\` deletes them.`, {
          type: 'hint',
          hint: downHint,
        });
        display.redraw();
        return;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  void Promise.race([watchReady(), io.interrupted]);
  await io.interrupted;
  announced = true;
  return 0;
}

/**
 * After reconciling stopped: with --once --clean, deletes what was created (false when a delete
 * failed); otherwise says what keeps running and how to delete it.
 */
async function finish(s: UpSession, gateways: (PoolView & { gateway: string })[]): Promise<boolean> {
  const { flags, io, view, stateDir, sa, echo, self, downHint } = s;
  if (flags.once && flags.clean) {
    const r = await down({
      providersPath: flags.providers,
      stateDir,
      onLine: (l) => view.warn(l, { type: 'down-step', message: l }),
    });
    io.out(
      view.mode === 'json'
        ? jsonLine({ type: 'down', deleted: r.deleted.length, errors: r.errors })
        : `cleaned up: deleted ${r.deleted.length} instance(s)${r.errors.length ? `; errors: ${r.errors.join('; ')}` : ''}\n`,
    );
    return r.errors.length === 0;
  }
  if (view.mode !== 'json') {
    const n = sa.store.records().length;
    io.out(
      `stopped reconciling; ${n} prox${n === 1 ? 'y keeps' : 'ies keep'} running. Delete: ${downHint}\n`,
    );
    for (const line of stoppedWithUp(gateways, echo?.url, self)) io.out(`${line}\n`);
  }
  return true;
}

/**
 * `up`: reconciles the Proxies in the files until interrupted (the proxies keep running), or with
 * --once until all are Ready (then, with --clean, deletes what it created).
 */
export async function runUp(flags: StandaloneFlags, io: Io): Promise<number> {
  const stateDir = claimStateDir(flags);
  const { log, logFile } = openLog(flags, stateDir);
  const echo = flags.demo ? await startEchoServer(flags.demoPort) : undefined;
  const view = new StatusView(io, flags.output);
  const sa = await startSession(flags, stateDir, log, echo, view);
  if (view.mode !== 'json')
    io.err(
      `egress-proxies up: installation ${sa.installation}, state in ${stateDir}, logs in ${logFile}${sa.httpPort ? `, metrics on port ${sa.httpPort}` : ''}\n`,
    );
  await sa.healthChecked;
  const loadFailures = reportProviders(sa, view);
  const page = await openStatusPage(sa, view, io);
  const display = liveDisplay(sa.store, view, io);
  // After Ctrl-C the table is left as it is: drawing it again would print it below the ^C.
  void io.interrupted.then(() => view.interrupted());
  const self = selfCommand();
  const s: UpSession = {
    flags,
    io,
    stateDir,
    sa,
    view,
    echo,
    display,
    self,
    downHint: `${self} down --providers ${quote(flags.providers)} --state-dir ${quote(flags.stateDir)}`,
    watching: false,
  };
  let code = 0;
  // What goes away with up (its pools' gateways), read before stopping, to say so after.
  let gateways: (PoolView & { gateway: string })[] = [];
  try {
    code = flags.once ? await runOnce(s, loadFailures) : await runUntilInterrupted(s);
  } finally {
    display.stop();
    gateways = sa.pools.views().filter((p): p is PoolView & { gateway: string } => p.gateway !== undefined);
    await page?.close();
    await sa.stop();
    display.redraw();
    view.release();
  }
  if (!(await finish(s, gateways))) code = 1;
  await echo?.close();
  return code;
}

/**
 * The pool's gateway as the demo shows it: the curl line through it, and with `check` three
 * requests that must leave from three members and one session that must stay on one.
 */
async function announcePool(
  view: StatusView,
  pool: PoolView & { gateway: string },
  target: string,
  check: boolean,
): Promise<boolean> {
  const line = `curl -x ${pool.gateway} ${target}`;
  const sessionLine = `curl -x ${pool.gateway.replace('://', '://demo-session-42:x@')} ${target}`;
  view.say(
    `pool ${pool.key}: ${pool.ready}/${pool.desired} Ready behind the gateway ${pool.gateway}`,
    poolJson(pool),
  );
  view.say(`try: ${line}`, { type: 'curl', curl: line });
  view.say(`try: ${sessionLine}   (a sticky session: the same member every time)`, {
    type: 'curl',
    curl: sessionLine,
  });
  if (!check) return true;
  try {
    const signal = AbortSignal.timeout(30_000);
    const n = Math.min(3, pool.ready);
    const spread = await egressThrough(pool.gateway, target, { count: n, signal });
    const sticky = await egressThrough(pool.gateway, target, { count: 3, session: '42', signal });
    if (new Set(spread).size !== n)
      throw new Error(`${n} requests left from ${spread.join(', ')}: not ${n} members`);
    if (new Set(sticky).size !== 1) throw new Error(`one session left from ${sticky.join(', ')}`);
    view.say(`checked: ${line} answered 200 ${n} times; the target saw ${spread.join(', ')}`, {
      type: 'check',
      check: 'ok',
      egressIPs: spread,
    });
    view.say(`checked: session 42 answered 200 3 times; the target saw ${sticky[0]} each time`, {
      type: 'check',
      check: 'ok',
      session: '42',
      egressIP: sticky[0],
    });
    return true;
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    view.say(`check failed: ${line}: ${error}`, { type: 'check', check: 'failed', error });
    return false;
  }
}

/** `status`: the last state `up` wrote, from another shell. */
export function showStatus(flags: StandaloneFlags, io: Io): number {
  const stateDir = resolve(flags.stateDir);
  const state = readState(stateDir);
  if (!state) {
    const why = `no standalone state in ${stateDir} (run ${selfCommand()} up first, or pass --state-dir)`;
    io.err(
      flags.output === 'json' ? jsonLine({ type: 'error', code: 'NO_STATE', message: why }) : `${why}\n`,
    );
    return 1;
  }
  const rows = StatusView.rows(state.proxies);
  const providers = (state.providers ?? []).map(providerRowOf);
  const running = isAlive(state.pid);
  if (flags.output === 'json') {
    io.out(
      jsonLine({
        type: 'status',
        installation: state.installation,
        upRunning: running,
        updatedAt: state.updatedAt,
        proxies: state.proxies.map(proxyJson),
        providers: (state.providers ?? []).map(providerJson),
        pools: (state.pools ?? []).map(({ key, ...pool }) => ({ pool: key, ...pool })),
        issues: state.issues ?? [],
      }),
    );
    return 0;
  }
  const plain = flags.output === 'plain';
  const lines = plain ? rows.map(plainLine) : renderTable(rows, io.columns);
  if (providers.length > 0)
    lines.push(
      ...(plain ? providers.map(plainProviderLine) : ['', ...renderProviderTable(providers, io.columns)]),
    );
  const pools = (state.pools ?? []).map(poolRowOf);
  if (pools.length > 0)
    lines.push(...(plain ? pools.map(plainPoolLine) : ['', ...renderPoolTable(pools, io.columns)]));
  io.out(`${lines.join('\n')}\n`);
  io.out(
    running ? `up is running (pid ${state.pid})\n` : `up is not running; state as of ${state.updatedAt}\n`,
  );
  for (const i of state.issues ?? []) io.out(`invalid Proxy document: ${i}\n`);
  return 0;
}

/** `down`: deletes what this installation created. */
export async function runDown(flags: StandaloneFlags, io: Io): Promise<number> {
  const stateDir = resolve(flags.stateDir);
  const state = readState(stateDir);
  if (state && isAlive(state.pid))
    throw new FlagError(
      `up (pid ${state.pid}) still reconciles ${stateDir}; stop it first (Ctrl-C), then run down`,
    );
  const json = flags.output === 'json';
  const r = await down({
    providersPath: flags.providers,
    stateDir,
    onLine: (l) => io.out(json ? jsonLine({ type: 'down-step', message: l }) : `${l}\n`),
  });
  if (json) {
    io.out(
      jsonLine({
        type: 'down',
        installation: r.installation ?? null,
        deleted: r.deleted.length,
        errors: r.errors,
      }),
    );
    return r.errors.length ? 1 : 0;
  }
  for (const e of r.errors) io.err(`down: ${e}\n`);
  io.out(`deleted ${r.deleted.length} instance(s) of installation ${r.installation ?? '(none)'}\n`);
  return r.errors.length ? 1 : 0;
}
