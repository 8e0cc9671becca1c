/**
 * The seam: every call the provider makes into the host (files, processes, ports), signal
 * first. The production adapter (`os-backend.ts`) implements it over the real machine; the
 * conformance harness wraps that adapter to inject faults, hold steps and record calls. Each
 * method is one named step, listed in `STEPS`.
 */
export const STEPS = {
  readState: 'read-state',
  writeState: 'write-state',
  removeState: 'remove-state',
  listStates: 'list-states',
  writeRuntime: 'write-config',
  removeRuntime: 'remove-runtime',
  listRuntime: 'list-runtime',
  spawn: 'spawn',
  inspect: 'inspect-process',
  kill: 'signal',
  probePort: 'probe-port',
  portFree: 'probe-free-port',
  probeStateDir: 'probe',
  findSquid: 'find-squid',
  engineVersion: 'engine-version',
  userIds: 'lookup-user',
  tailLog: 'read-log',
  findProcesses: 'scan-processes',
} as const;

export type Step = (typeof STEPS)[keyof typeof STEPS];

/** What /proc says about a pid. */
export interface ProcessInfo {
  /** False when the pid does not exist or is a zombie. */
  alive: boolean;
  /** Field 22 of /proc/<pid>/stat: start time in clock ticks since boot. */
  startTime?: string;
  /** /proc/<pid>/cmdline split at NUL. */
  cmdline?: string[];
  /**
   * TCP ports the process itself listens on (its own socket inodes matched against its network
   * namespace's tables); undefined when they cannot be read.
   */
  listenPorts?: number[];
}

export interface SpawnSpec {
  command: string;
  args: readonly string[];
  /** Working directory, and where stdout.log and stderr.log go. */
  runtimeDir: string;
}

export interface Spawned {
  pid: number;
  startTime: string;
}

/** A user's numeric ids (Squid drops to `cache_effective_user` when started as root). */
export interface UserIds {
  uid: number;
  gid: number;
}

export interface LocalBackend {
  /** The state file's text, or undefined when it does not exist. */
  readState(signal: AbortSignal | undefined, name: string): Promise<string | undefined>;
  /** Writes the state file atomically (temp file, then rename). */
  writeState(signal: AbortSignal | undefined, name: string, text: string): Promise<void>;
  /** Removes the state file; absent is success. */
  removeState(signal: AbortSignal | undefined, name: string): Promise<void>;
  /** Names of every `*.json` file in the instances directory; empty when it does not exist. */
  listStates(signal: AbortSignal | undefined): Promise<string[]>;
  /** (Re)creates the instance's runtime directory with these files, owned by `owner` when given. */
  writeRuntime(
    signal: AbortSignal | undefined,
    name: string,
    files: Readonly<Record<string, string>>,
    owner?: UserIds,
  ): Promise<string>;
  /** Removes the runtime directory; absent is success. */
  removeRuntime(signal: AbortSignal | undefined, name: string): Promise<void>;
  /** Names of the runtime directories. */
  listRuntime(signal: AbortSignal | undefined): Promise<string[]>;
  /** Starts a detached process that outlives this one, with its output in the runtime directory. */
  spawn(signal: AbortSignal | undefined, spec: SpawnSpec): Promise<Spawned>;
  inspect(signal: AbortSignal | undefined, pid: number): Promise<ProcessInfo>;
  /** Sends `sig` to `pid`; a pid that no longer exists is success. Callers verify identity first. */
  kill(signal: AbortSignal | undefined, pid: number, sig: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** True when a TCP connection to host:port is accepted. */
  probePort(signal: AbortSignal | undefined, host: string, port: number): Promise<boolean>;
  /** True when host:port can be bound right now. */
  portFree(signal: AbortSignal | undefined, host: string, port: number): Promise<boolean>;
  /** Creates the state directory if needed and proves it is writable. */
  probeStateDir(signal: AbortSignal | undefined): Promise<void>;
  /** The Squid binary: the configured path when it exists, else the first found on PATH and sbin. */
  findSquid(signal: AbortSignal | undefined, configured?: string): Promise<string | undefined>;
  /** `squid -v`'s version, or the Node engine's (Node and proxy-chain) versions. */
  engineVersion(
    signal: AbortSignal | undefined,
    engine: 'squid' | 'node',
    squidPath?: string,
  ): Promise<string>;
  /**
   * Live processes (not this one) with a command-line argument starting with `argPrefix`: how
   * a proxy whose pid was never recorded (a crash between spawn and the state write) is found.
   */
  findProcesses(signal: AbortSignal | undefined, argPrefix: string): Promise<number[]>;
  /** The last `bytes` of a log file in the runtime directory; undefined when it does not exist. */
  tailLog(
    signal: AbortSignal | undefined,
    name: string,
    file: string,
    bytes: number,
  ): Promise<string | undefined>;
  /** Numeric ids of a local user, undefined when there is no such user. */
  userIds(signal: AbortSignal | undefined, user: string): Promise<UserIds | undefined>;
}
