import { parseArgs } from 'node:util';
import { parseDuration } from '../api/duration.js';
import { LOG_LEVELS, type LogLevelName } from '../log/logger.js';
import { FlagError } from './run-flags.js';

export type OutputMode = 'auto' | 'table' | 'plain' | 'json';

export interface StandaloneFlags {
  files: string[];
  providers: string;
  stateDir: string;
  output: OutputMode;
  demo: boolean;
  demoPort: number;
  once: boolean;
  clean: boolean;
  timeoutMs: number;
  workers: number;
  gcIntervalMs: number;
  gcGraceMs: number;
  healthIntervalMs: number;
  http?: { host: string; port: number };
  logLevel: LogLevelName;
  logFile?: string;
}

export const STANDALONE_USAGE = `usage: egress-proxies up -f PROXIES --providers PROVIDERS [flags]
       egress-proxies status [--state-dir DIR] [--output table|plain|json]
       egress-proxies down --providers PROVIDERS [--state-dir DIR]

  -f, --file PATH               Proxy documents (several per file; a directory of .yaml files); repeatable
  --providers PATH              providers config (the same format as in the cluster)
  --state-dir DIR               state file and installation id (default $EGRESS_PROXIES_STATE_DIR or ./.egress-proxies)
  --output MODE                 table (live, on a terminal), plain (a line per change), json (a line per change); default: table on a terminal, plain otherwise
  --demo                        start a loopback echo server and probe every Proxy without spec.probe through it
  --demo-port PORT              the echo server's port (default: any free port)
  --once                        exit 0 once every Proxy is Ready (1 when --timeout passes first)
  --clean                       with --once: delete what this installation created before exiting
  --timeout DURATION            how long --once waits (default 2m)
  --workers N                   concurrent reconciles (default 4)
  --gc-interval DURATION        orphan GC period (default 5m)
  --gc-grace DURATION           orphans younger than this are kept (default 10m)
  --health-interval DURATION    provider health check period (default 1m)
  --metrics-bind-address H:P    serve /metrics, /healthz, /readyz (default: off)
  --log-level LEVEL             fatal, error, warn, info, debug, trace (default info)
  --log-file PATH               JSON logs (default <state-dir>/up.log)
`;

function duration(flag: string, v: string | undefined, dflt: string): number {
  try {
    return parseDuration(v ?? dflt);
  } catch {
    throw new FlagError(`${flag}: ${JSON.stringify(v)} is not a duration (such as 30s, 5m)`);
  }
}

function positiveInt(flag: string, v: string | undefined, dflt: number, min = 1): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > 65535)
    throw new FlagError(`${flag}: ${JSON.stringify(v)} is not a valid number`);
  return n;
}

/** Parses the flags of `up`, `status` and `down` (each ignores what it does not use). */
export function parseStandaloneFlags(command: 'up' | 'status' | 'down', args: string[]): StandaloneFlags {
  let values: Record<string, string | string[] | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        file: { type: 'string', short: 'f', multiple: true },
        providers: { type: 'string' },
        'state-dir': { type: 'string' },
        output: { type: 'string', short: 'o' },
        demo: { type: 'boolean' },
        'demo-port': { type: 'string' },
        once: { type: 'boolean' },
        clean: { type: 'boolean' },
        timeout: { type: 'string' },
        workers: { type: 'string' },
        'gc-interval': { type: 'string' },
        'gc-grace': { type: 'string' },
        'health-interval': { type: 'string' },
        'metrics-bind-address': { type: 'string' },
        'log-level': { type: 'string' },
        'log-file': { type: 'string' },
      },
    }));
  } catch (err) {
    throw new FlagError(`${command}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const str = (k: string) => values[k] as string | undefined;
  const files = (values.file as string[] | undefined) ?? [];
  const providers = str('providers') ?? '';
  if (command === 'up' && files.length === 0)
    throw new FlagError('up: -f PATH (Proxy documents) is required');
  if (command !== 'status' && !providers) throw new FlagError(`${command}: --providers PATH is required`);
  const output = (str('output') ?? 'auto') as OutputMode;
  if (!['auto', 'table', 'plain', 'json'].includes(output))
    throw new FlagError(`--output: ${JSON.stringify(output)} is not one of table, plain, json`);
  const logLevel = (str('log-level') ?? 'info') as LogLevelName;
  if (!LOG_LEVELS.includes(logLevel))
    throw new FlagError(`--log-level: ${JSON.stringify(logLevel)} is not one of ${LOG_LEVELS.join(', ')}`);
  if (values.clean && !values.once) throw new FlagError('--clean applies only with --once');
  let http: StandaloneFlags['http'];
  const bind = str('metrics-bind-address');
  if (bind !== undefined) {
    const m = /^(.*):(\d{1,5})$/.exec(bind);
    if (!m || Number(m[2]) > 65535)
      throw new FlagError(`--metrics-bind-address: ${JSON.stringify(bind)} is not HOST:PORT`);
    http = { host: m[1] || '127.0.0.1', port: Number(m[2]) };
  }
  return {
    files,
    providers,
    stateDir: str('state-dir') ?? process.env.EGRESS_PROXIES_STATE_DIR ?? '.egress-proxies',
    output,
    demo: values.demo === true,
    demoPort: positiveInt('--demo-port', str('demo-port'), 0, 0),
    once: values.once === true,
    clean: values.clean === true,
    timeoutMs: duration('--timeout', str('timeout'), '2m'),
    workers: positiveInt('--workers', str('workers'), 4),
    gcIntervalMs: duration('--gc-interval', str('gc-interval'), '5m'),
    gcGraceMs: duration('--gc-grace', str('gc-grace'), '10m'),
    healthIntervalMs: duration('--health-interval', str('health-interval'), '1m'),
    ...(http ? { http } : {}),
    logLevel,
    ...(str('log-file') ? { logFile: str('log-file') as string } : {}),
  };
}
