import { randomUUID } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { ProviderHealthStatus } from '../api/provider-health.js';
import type { ProxyStatus } from '../api/proxy.js';
import type { PoolMemberStatus } from '../api/proxy-pool.js';
import type { PoolAutoscaleView } from './member-file.js';

export const STATE_FILE = 'standalone-state.json';
const KIND = 'egress-proxies.standalone-state/v1';

/** What standalone mode remembers about one Proxy between runs. */
export interface ProxyRecord {
  namespace: string;
  name: string;
  uid: string;
  generation: number;
  /** The spec the generation belongs to (a change moves the generation on). */
  spec: unknown;
  finalizers: string[];
  deletionTimestamp?: string;
  /** Where the Proxy came from (`file[index]`), for messages. */
  source?: string;
  status?: ProxyStatus;
  /** Where clients reach it, when it was last seen running. */
  endpoint?: { host: string; port: number };
  /** The latest progress a provider call logged while it runs (an image download). */
  progress?: string;
}

/** The latest ProviderHealth status of one configured provider. */
export interface ProviderRecord {
  name: string;
  status: ProviderHealthStatus;
}

/** A pool as `up` last saw it: its counts, members and gateway, by the cluster's status names. */
export interface PoolRecord {
  /** `namespace/name`. */
  key: string;
  /** spec.replicas, or with autoscale the size the autoscaler chose. */
  desired: number;
  /** Members that exist. */
  replicas: number;
  ready: number;
  members: PoolMemberStatus[];
  /** The in-process gateway's URL, while `up` runs it. */
  gateway?: string;
  /** Members chosen to go that still carry connections (they get no new work). */
  draining?: string[];
  /** With spec.autoscale: the bounds, the load and the Scaling reason. */
  autoscale?: PoolAutoscaleView;
}

export interface StandaloneState {
  kind: typeof KIND;
  /** This installation's id: written into every instance's mark; `down` and GC act on it only. */
  installation: string;
  updatedAt: string;
  /** The pid of the `up` that wrote last, while it runs. */
  pid?: number;
  /** The demo echo target, while `up --demo` runs. */
  demoTarget?: string;
  /** Document problems of the last scan, formatted. */
  issues?: string[];
  proxies: ProxyRecord[];
  /** The providers' latest health checks. */
  providers?: ProviderRecord[];
  /** The ProxyPools in the files, as the last write saw them. */
  pools?: PoolRecord[];
}

export const statePath = (stateDir: string) => join(stateDir, STATE_FILE);

/** Reads the state file; undefined when there is none. A file that does not parse is an error naming it. */
export function readState(stateDir: string): StandaloneState | undefined {
  const path = statePath(stateDir);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let parsed: StandaloneState;
  try {
    parsed = JSON.parse(text) as StandaloneState;
  } catch {
    throw new Error(`${path} is not JSON; move it away to start afresh (instances keep their marks)`);
  }
  if (parsed?.kind !== KIND || typeof parsed.installation !== 'string' || !Array.isArray(parsed.proxies))
    throw new Error(`${path} is not a standalone state file (kind ${JSON.stringify(parsed?.kind)})`);
  return parsed;
}

/**
 * Writes the state file atomically and durably: a temp file written and flushed to disk, renamed
 * over the old one, then the directory flushed. A reader (or a process killed at any point, or a
 * machine losing power) finds the old file or the new one, never half of one.
 */
export function writeState(stateDir: string, state: Omit<StandaloneState, 'kind' | 'updatedAt'>): void {
  mkdirSync(stateDir, { recursive: true });
  const path = statePath(stateDir);
  const tmp = `${path}.${process.pid}.tmp`;
  const full: StandaloneState = { kind: KIND, updatedAt: new Date().toISOString(), ...state };
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(full, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  // The rename itself is durable once the directory entry is on disk.
  const dir = openSync(stateDir, 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/** Removes temp files a killed writer left behind (`<state file>.<pid>.tmp` of a dead pid). */
export function removeStaleTempFiles(stateDir: string, alive: (pid: number) => boolean): void {
  let names: string[];
  try {
    names = readdirSync(stateDir);
  } catch {
    return;
  }
  for (const n of names) {
    const m = new RegExp(`^${STATE_FILE.replace('.', '\\.')}\\.(\\d+)\\.tmp$`).exec(n);
    if (m && !alive(Number(m[1]))) rmSync(join(stateDir, n), { force: true });
  }
}

/** The installation id of a state dir, generated once and kept in the state file. */
export function ensureInstallation(stateDir: string): string {
  const s = readState(stateDir);
  if (s) return s.installation;
  const installation = `standalone-${randomUUID()}`;
  writeState(stateDir, { installation, proxies: [] });
  return installation;
}
