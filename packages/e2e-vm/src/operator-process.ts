import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One line of `up --output json`, as seen by the test, with the time it arrived. */
export interface PhaseEvent {
  name: string;
  /** The phase word alone (`Provisioning 12s` becomes `Provisioning`); `Deleted` when gone. */
  phase: string;
  address: string;
  message: string;
  at: number;
}

/** The parts of the standalone state file the test reads. */
export interface ProxyState {
  name: string;
  uid: string;
  status?: {
    phase?: string;
    ip?: string;
    egressIP?: string;
    providerID?: string;
    healthy?: boolean;
    message?: string;
    /** What the provider allocated from an egress plan. */
    assignedEgress?: { ipv4?: string; ipv6?: string; ipv6Prefix?: string };
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

export interface UpProcess {
  readonly events: PhaseEvent[];
  /** Every JSON line printed (phase lines, pool views, messages), in order. */
  readonly records: Record<string, unknown>[];
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  proxies(): ProxyState[];
  /** Resolves with the first event matching, waiting for it if needed. */
  waitForPhase(name: string, phase: string, timeoutMs: number): Promise<PhaseEvent>;
  stop(): Promise<void>;
}

/** Parses one `--output json` line; undefined for anything else (a message line, noise). */
export function parsePhaseLine(line: string, at: number): PhaseEvent | undefined {
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof row !== 'object' || row === null) return undefined;
  const r = row as Record<string, unknown>;
  if (typeof r.name !== 'string' || typeof r.phase !== 'string') return undefined;
  return {
    name: r.name,
    phase: r.phase.split(' ')[0] ?? '',
    address: typeof r.address === 'string' ? r.address : '',
    message: typeof r.message === 'string' ? r.message : '',
    at: at,
  };
}

function jsonObject(line: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `egress-proxies up ... --output json` and follows its phase lines. */
export function startUp(o: { main: string; args: string[]; stateDir: string; cwd: string }): UpProcess {
  const child: ChildProcess = spawn(
    process.execPath,
    [o.main, 'up', ...o.args, '--state-dir', o.stateDir, '--output', 'json'],
    { cwd: o.cwd, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const events: PhaseEvent[] = [];
  const records: Record<string, unknown>[] = [];
  const chunks: string[] = [];
  let exited: string | undefined;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  let pending = '';
  child.stdout?.setEncoding('utf8').on('data', (s: string) => {
    chunks.push(s);
    pending += s;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const ev = parsePhaseLine(line, Date.now());
      if (ev) events.push(ev);
      const record = jsonObject(line);
      if (record) records.push(record);
    }
    wake();
  });
  child.stderr?.setEncoding('utf8').on('data', (s: string) => chunks.push(s));
  child.on('exit', (code, sig) => {
    exited = sig ? `signal ${sig}` : `exit code ${code}`;
    wake();
  });
  const output = () => chunks.join('');

  return {
    events,
    records,
    output,
    proxies: () => {
      const state = JSON.parse(readFileSync(join(o.stateDir, 'standalone-state.json'), 'utf8')) as {
        proxies: ProxyState[];
      };
      return state.proxies;
    },
    waitForPhase: (name, phase, timeoutMs) =>
      new Promise<PhaseEvent>((resolve, reject) => {
        const check = () => {
          const hit = events.find((e) => e.name === name && e.phase === phase);
          if (hit) return done(() => resolve(hit));
          if (exited !== undefined)
            return done(() =>
              reject(
                new Error(
                  `egress-proxies up ended (${exited}) before ${name} was ${phase}:\n${output().slice(-4000)}`,
                ),
              ),
            );
        };
        const timer = setTimeout(() => {
          const seen = events.filter((e) => e.name === name).map((e) => `${e.phase}: ${e.message}`);
          done(() =>
            reject(
              new Error(
                `${name} was not ${phase} within ${timeoutMs} ms; its lines: ${seen.slice(-8).join(' | ')}`,
              ),
            ),
          );
        }, timeoutMs);
        const done = (f: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          f();
        };
        waiters.add(check);
        check();
      }),
    stop: async () => {
      if (exited !== undefined) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await gone;
      clearTimeout(timer);
    },
  };
}
