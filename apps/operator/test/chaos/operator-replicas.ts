import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';

/** One process of one replica slot, from its start to its end. */
export interface Incarnation {
  slot: string;
  n: number;
  pid: number;
  logPath: string;
  /** The last /metrics text read from it (right before a kill, and on every scrape). */
  metrics?: string;
  /** Set once it ended: killed by the run, or exited on its own (lost its lease, failed to start). */
  end?: { code: number | null; signal: NodeJS.Signals | null; killed: boolean };
}

interface Slot {
  name: string;
  port: number;
  child?: ChildProcess;
  current?: Incarnation;
  log?: WriteStream;
  /** While true, an exit is not followed by a restart. */
  held: boolean;
  restartTimer?: NodeJS.Timeout;
}

export interface ReplicaOptions {
  main: string;
  /** The `run` flags of a slot; the HTTP port is the slot's own. */
  args: (port: number) => string[];
  env: NodeJS.ProcessEnv;
  logDir: string;
  /** How long a replica that ended on its own stays down before it starts again. */
  restartDelayMs?: number;
}

/**
 * `egress-proxies run` replicas as a Deployment would keep them: each slot runs one process; a
 * process that ends on its own (a lost lease, a failed start) is started again, and the run kills
 * them with SIGKILL at its chosen moments. Every incarnation's output (JSON logs at debug) goes
 * to its own file, and its metrics are scraped while it lives.
 */
export class OperatorReplicas {
  readonly incarnations: Incarnation[] = [];
  readonly #slots = new Map<string, Slot>();
  #stopping = false;
  #scrapeTimer?: NodeJS.Timeout;

  constructor(private readonly opts: ReplicaOptions) {}

  add(name: string, port: number): void {
    this.#slots.set(name, { name, port, held: false });
  }

  slots(): string[] {
    return [...this.#slots.keys()];
  }

  port(slot: string): number {
    return this.#slot(slot).port;
  }

  running(slot: string): boolean {
    const s = this.#slot(slot);
    return s.child !== undefined && s.child.exitCode === null && s.child.signalCode === null;
  }

  #slot(name: string): Slot {
    const s = this.#slots.get(name);
    if (!s) throw new Error(`no replica slot ${name}`);
    return s;
  }

  start(slot: string): void {
    const s = this.#slot(slot);
    if (this.#stopping || this.running(slot)) return;
    s.held = false;
    clearTimeout(s.restartTimer);
    const n = this.incarnations.filter((i) => i.slot === slot).length + 1;
    const logPath = join(this.opts.logDir, `operator-${slot}-${n}.log`);
    const log = createWriteStream(logPath);
    const child = spawn(process.execPath, [this.opts.main, 'run', ...this.opts.args(s.port)], {
      env: this.opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    const inc: Incarnation = { slot, n, pid: child.pid ?? -1, logPath };
    this.incarnations.push(inc);
    s.child = child;
    s.current = inc;
    s.log = log;
    child.once('exit', (code, signal) => {
      inc.end = { code, signal, killed: inc.end?.killed ?? false };
      // The pipes end after the process; the log closes with them.
      let open = 2;
      const closeLog = () => {
        if (--open === 0) log.end();
      };
      if (child.stdout) child.stdout.once('close', closeLog);
      else closeLog();
      if (child.stderr) child.stderr.once('close', closeLog);
      else closeLog();
      if (s.child === child) s.child = undefined;
      if (!this.#stopping && !s.held) {
        s.restartTimer = setTimeout(() => this.start(slot), this.opts.restartDelayMs ?? 1_000);
      }
    });
  }

  /** Reads the slot's /metrics once (undefined when it does not answer). */
  async scrape(slot: string): Promise<string | undefined> {
    const s = this.#slot(slot);
    const inc = s.current;
    if (!inc || !this.running(slot)) return undefined;
    try {
      const r = await fetch(`http://127.0.0.1:${s.port}/metrics`, { signal: AbortSignal.timeout(2_000) });
      if (r.status !== 200) return undefined;
      const text = await r.text();
      // A port answers for one process at a time; only the live incarnation's text is kept.
      if (s.current === inc && inc.end === undefined) inc.metrics = text;
      return text;
    } catch {
      return undefined;
    }
  }

  /** Scrapes every running slot each `everyMs` until stopped. */
  scrapeEvery(everyMs: number): void {
    const tick = async () => {
      await Promise.all(this.slots().map((s) => this.scrape(s)));
      if (!this.#stopping) this.#scrapeTimer = setTimeout(() => void tick(), everyMs);
    };
    void tick();
  }

  /** The slot whose process reports itself leader right now, if any. */
  async leader(): Promise<string | undefined> {
    for (const slot of this.slots()) {
      const text = await this.scrape(slot);
      if (text && /^leader_election_master_status\{[^}]*\} 1$/m.test(text)) return slot;
    }
    return undefined;
  }

  /**
   * SIGKILLs the slot's process (its metrics read first) and keeps it down for `downMs`, then
   * starts it again. Resolves once the process is gone.
   */
  async kill(slot: string, downMs: number): Promise<boolean> {
    const s = this.#slot(slot);
    const child = s.child;
    if (!child || !this.running(slot)) return false;
    await this.scrape(slot);
    s.held = true;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    if (s.current) s.current.end = { code: null, signal: null, killed: true };
    child.kill('SIGKILL');
    await exited;
    if (s.current) s.current.end = { code: null, signal: 'SIGKILL', killed: true };
    s.restartTimer = setTimeout(() => this.start(slot), downMs);
    return true;
  }

  /** Stops restarting and ends every process: SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#scrapeTimer);
    await Promise.all(
      [...this.#slots.values()].map(async (s) => {
        clearTimeout(s.restartTimer);
        const child = s.child;
        if (!child || child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((r) => child.once('exit', () => r()));
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(t);
      }),
    );
  }
}
