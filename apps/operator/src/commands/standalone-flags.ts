import { LOG_LEVELS } from '../domain/log-levels.js';
import { LOG_FORMATS, type LogFormat } from '../domain/text-format.js';
import { loadProxyUsers, type ProxyUsers } from '../gateway/basic-auth.js';
import { isLoopback } from '../gateway/loopback.js';
import { FlagError } from './flag-error.js';
import { FlagReader, type FlagWording } from './flag-reader.js';
import { TUNING_OPTIONS, type TuningFlags } from './tuning-flags.js';

export type OutputMode = 'auto' | 'table' | 'plain' | 'json';

export interface StandaloneFlags extends TuningFlags {
  files: string[];
  providers: string;
  stateDir: string;
  output: OutputMode;
  demo: boolean;
  demoPort: number;
  once: boolean;
  clean: boolean;
  timeoutMs: number;
  http?: { host: string; port: number };
  logFile?: string;
  logFormat: LogFormat;
  /** Where the pools' gateways listen (default loopback); off loopback only with `gatewayUsers`. */
  gatewayHost?: string;
  /** Proxy users of the pools' gateways: a directory with one file per user holding its password. */
  gatewayUsers?: ProxyUsers;
  /** A SOCKS5 listener for the pools' gateways (a busy port: a free one instead, logged). */
  gatewaySocks?: { host: string; port: number };
  /** How long a pool member chosen to go keeps its open tunnels before it is deleted anyway. */
  poolDrainTimeoutMs: number;
}

/** Every flag `up` takes, one help line each; `status` and `down` show the lines of theirs. */
const FLAG_LINES = `  -f, --file PATH               Proxy documents (several per file; a directory of .yaml files); repeatable
  --providers PATH              providers config (the same format as in the cluster)
  --state-dir DIR               state file and installation id (default $EGRESS_PROXIES_STATE_DIR or ./.egress-proxies)
  --output MODE                 table (live, on a terminal), plain (a line per change), json (a typed record a line, nothing else); default: table on a terminal, plain otherwise
  --demo                        start a loopback echo server and probe every Proxy without spec.probe through it
  --demo-port PORT              the echo server's port (default: any free port)
  --once                        exit 0 once every Proxy is Ready (1 when --timeout passes first)
  --clean                       with --once: delete what this installation created before exiting
  --timeout DURATION            how long --once waits (default 2m)
  --workers N                   concurrent reconciles (default 4)
  --create-concurrency N        creates of one provider running at once; others queue (default 8)
  --create-timeout DURATION     deadline of a create, then aborted and retried (default 30m; per provider: createTimeout)
  --call-timeout DURATION       deadline of every other provider call: get, delete, listByTag, check (default 2m)
  --gc-interval DURATION        orphan GC period (default 5m)
  --gc-grace DURATION           orphans younger than this are kept (default 10m)
  --health-interval DURATION    provider health check period (default 1m)
  --metrics-bind-address H:P    serve /metrics, /healthz, /readyz (default: off)
  --log-level LEVEL             fatal, error, warn, info, debug, trace (default info)
  --log-file PATH               the log file (default <state-dir>/up.log)
  --log-format FORMAT           json (one object a line, default) or text (for reading with less)
  --gateway-listen HOST         the address pools' gateways listen on (default 127.0.0.1); off loopback it needs --gateway-users
  --gateway-users DIR           the gateways' proxy users: one file per user, holding its password
  --gateway-socks-listen H:P    the gateways also serve SOCKS5 there (same users; off loopback it needs --gateway-users)
  --pool-drain-timeout DURATION how long a pool member chosen to go keeps its open tunnels before it is deleted (default 2m)
`;

/** The help lines of the named flags, in the order `up` lists them; ends with a newline. */
function flagLines(names: readonly string[]): string {
  const lines = FLAG_LINES.split('\n').filter((l) => names.some((n) => l.includes(`--${n} `)));
  return `${lines.join('\n')}\n`;
}

/** The three commands at once, as the overall usage lists them. */
export const STANDALONE_USAGE = `usage: egress-proxies up -f PROXIES --providers PROVIDERS [flags]
       egress-proxies status [--state-dir DIR] [--output table|plain|json]
       egress-proxies down --providers PROVIDERS [--state-dir DIR]

${FLAG_LINES}`;

export const UP_USAGE = `usage: egress-proxies up -f PROXIES --providers PROVIDERS [flags]

${FLAG_LINES}`;

export const STATUS_USAGE = `usage: egress-proxies status [--state-dir DIR] [--output table|plain|json]

${flagLines(['state-dir', 'output'])}`;

export const DOWN_USAGE = `usage: egress-proxies down --providers PROVIDERS [--state-dir DIR] [--output plain|json]

${flagLines(['providers', 'state-dir', 'output'])}`;

const STANDALONE_WORDING: FlagWording = {
  duration: (flag, shown) => `${flag}: ${shown} is not a duration (such as 30s, 5m)`,
  integer: (flag, shown) => `${flag}: ${shown} is not a valid number`,
  oneOf: (flag, shown, allowed) => `${flag}: ${shown} is not one of ${allowed.join(', ')}`,
  hostPort: (flag, shown) => `${flag}: ${shown} is not HOST:PORT`,
};

const OUTPUT_MODES: readonly OutputMode[] = ['auto', 'table', 'plain', 'json'];

/** The flags `up` takes; `status` and `down` take the few they use (`COMMAND_FLAGS`). */
export const STANDALONE_OPTIONS = {
  ...TUNING_OPTIONS,
  file: { type: 'string', short: 'f', multiple: true },
  providers: { type: 'string' },
  'state-dir': { type: 'string' },
  output: { type: 'string', short: 'o' },
  demo: { type: 'boolean' },
  'demo-port': { type: 'string' },
  once: { type: 'boolean' },
  clean: { type: 'boolean' },
  timeout: { type: 'string' },
  'metrics-bind-address': { type: 'string' },
  'log-file': { type: 'string' },
  'log-format': { type: 'string' },
  'gateway-listen': { type: 'string' },
  'gateway-users': { type: 'string' },
  'gateway-socks-listen': { type: 'string' },
  'pool-drain-timeout': { type: 'string' },
} as const;

/**
 * The flags `status` and `down` accept: only what they use, so an `up` flag given to them (a
 * `--demo`, a `--gateway-listen`) is refused with the closest flag they do take instead of being
 * silently ignored.
 */
export const COMMAND_FLAGS = {
  status: ['state-dir', 'output'],
  down: ['providers', 'state-dir', 'output'],
} as const satisfies Record<'status' | 'down', readonly (keyof typeof STANDALONE_OPTIONS)[]>;

function optionsOf(command: 'up' | 'status' | 'down') {
  if (command === 'up') return STANDALONE_OPTIONS;
  return Object.fromEntries(COMMAND_FLAGS[command].map((f) => [f, STANDALONE_OPTIONS[f]]));
}

/** Parses the flags of `up`, `status` and `down` (the last two accept only `COMMAND_FLAGS`). */
export function parseStandaloneFlags(command: 'up' | 'status' | 'down', args: string[]): StandaloneFlags {
  const r = new FlagReader(args, optionsOf(command), STANDALONE_WORDING, command);
  const files = (r.values.file as string[] | undefined) ?? [];
  const providers = r.string('providers') ?? '';
  if (command === 'up' && files.length === 0)
    throw new FlagError('up: -f PATH (Proxy documents) is required');
  if (command !== 'status' && !providers) throw new FlagError(`${command}: --providers PATH is required`);
  // `auto` is the default, not something to ask for, so the error leaves it out.
  const output = r.oneOf('output', 'auto', OUTPUT_MODES, ['table', 'plain', 'json']);
  const logLevel = r.oneOf('log-level', 'info', LOG_LEVELS);
  if (r.boolean('clean') && !r.boolean('once')) throw new FlagError('--clean applies only with --once');
  const bind = r.hostPort('metrics-bind-address');
  const logFile = r.string('log-file');
  const gatewayHost = r.string('gateway-listen');
  const usersDir = r.string('gateway-users');
  let gatewayUsers: ProxyUsers | undefined;
  if (usersDir)
    try {
      gatewayUsers = loadProxyUsers(usersDir);
    } catch (err) {
      throw new FlagError(`--gateway-users ${usersDir}: ${(err as Error).message}`);
    }
  // Never an open proxy: a gateway other machines can reach asks for a password.
  if (gatewayHost !== undefined && !isLoopback(gatewayHost) && !gatewayUsers)
    throw new FlagError(
      `--gateway-listen ${gatewayHost}: a gateway reachable from other machines needs --gateway-users DIR (one file per user holding its password), or listen on a loopback address`,
    );
  const socks = r.hostPort('gateway-socks-listen');
  const gatewaySocks = socks && { host: socks.host || '127.0.0.1', port: socks.port };
  if (gatewaySocks && !isLoopback(gatewaySocks.host) && !gatewayUsers)
    throw new FlagError(
      `--gateway-socks-listen ${gatewaySocks.host}: a gateway reachable from other machines needs --gateway-users DIR (one file per user holding its password), or listen on a loopback address`,
    );
  return {
    files,
    providers,
    stateDir: r.string('state-dir') ?? process.env.EGRESS_PROXIES_STATE_DIR ?? '.egress-proxies',
    output,
    demo: r.boolean('demo'),
    demoPort: r.integer('demo-port', 0, 0, 65535),
    once: r.boolean('once'),
    clean: r.boolean('clean'),
    timeoutMs: r.duration('timeout', '2m'),
    workers: r.integer('workers', 4, 1, 65535),
    createConcurrency: r.integer('create-concurrency', 8, 1, 1024),
    createTimeoutMs: r.duration('create-timeout', '30m'),
    callTimeoutMs: r.duration('call-timeout', '2m'),
    gcIntervalMs: r.duration('gc-interval', '5m'),
    gcGraceMs: r.duration('gc-grace', '10m'),
    healthIntervalMs: r.duration('health-interval', '1m'),
    ...(bind ? { http: { host: bind.host || '127.0.0.1', port: bind.port } } : {}),
    logLevel,
    logFormat: r.oneOf('log-format', 'json', LOG_FORMATS),
    ...(logFile ? { logFile } : {}),
    ...(gatewayHost !== undefined ? { gatewayHost } : {}),
    ...(gatewayUsers ? { gatewayUsers } : {}),
    ...(gatewaySocks ? { gatewaySocks } : {}),
    poolDrainTimeoutMs: r.duration('pool-drain-timeout', '2m'),
  };
}
