import { POOL_ROTATES } from '../api/proxy-pool.js';
import { LOG_LEVELS, type LogLevelName } from '../domain/log-levels.js';
import { LOG_FORMATS, type LogFormat } from '../domain/text-format.js';
import { type GatewayMember, SELECTIONS, type Selection } from '../gateway/member-table.js';
import { FlagError } from './flag-error.js';
import { FlagReader, type FlagWording } from './flag-reader.js';

export { GATEWAY_USAGE } from './gateway-usage.js';

export interface GatewayFlags {
  /** `namespace/name` of the ProxyPool whose Ready members to route through (in the cluster). */
  pool?: { namespace: string; name: string };
  /** Fixed members instead of a pool: `name=host:port`. */
  members?: GatewayMember[];
  kubeconfig?: string;
  /** The port is absent when not given: the pool's spec.gateway.port, else 8080. */
  listen: { host: string; port?: number };
  metrics?: { host: string; port: number };
  /** A SOCKS5 listener beside the HTTP one (host defaults to loopback); absent: none. */
  socksListen?: { host: string; port: number };
  usersDir?: string;
  // Absent when not given: the pool's spec.gateway value applies, else the built-in default.
  selection?: Selection;
  rotate?: (typeof POOL_ROTATES)[number];
  sessionTtlMs?: number;
  cooldownMs?: number;
  banStatuses?: number[];
  drainMs: number;
  logLevel: LogLevelName;
  logFormat: LogFormat;
}

const WORDING: FlagWording = {
  duration: (flag, shown) => `${flag}: invalid duration ${shown} (expected e.g. 30s, 5m, 1h)`,
  integer: (flag, shown, min, max) => `${flag}: expected an integer from ${min} to ${max}, got ${shown}`,
  oneOf: (flag, shown, allowed) => `${flag}: expected one of ${allowed.join(', ')}, got ${shown}`,
  hostPort: (flag, shown) => `${flag}: expected HOST:PORT, got ${shown}`,
};

const MEMBER = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)=(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;
const DNS_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';

/** `HOST`, `[IPV6]`, or either with `:PORT`. */
function listenFlag(value: string | undefined): { host: string; port?: number } {
  if (value === undefined) return { host: '127.0.0.1' };
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(value);
  const port = m?.[2] === undefined ? undefined : Number(m[2]);
  if (!m || (port !== undefined && port > 65535))
    throw new FlagError(`--listen: expected HOST or HOST:PORT, got ${JSON.stringify(value)}`);
  const host = (m[1] as string).replace(/^\[(.*)\]$/, '$1');
  return port === undefined ? { host } : { host, port };
}

function banStatusesFlag(value: string): number[] {
  const out = value.split(',').map((s) => Number(s.trim()));
  if (!out.length || out.some((n) => !Number.isInteger(n) || n < 400 || n > 599))
    throw new FlagError(
      `--ban-statuses: expected HTTP error statuses 400-599, comma-separated, got ${JSON.stringify(value)}`,
    );
  return out;
}

/** The flags `gateway` takes. */
export const GATEWAY_OPTIONS = {
  pool: { type: 'string' },
  members: { type: 'string' },
  kubeconfig: { type: 'string' },
  listen: { type: 'string' },
  'socks-listen': { type: 'string' },
  metrics: { type: 'string' },
  'users-dir': { type: 'string' },
  selection: { type: 'string' },
  rotate: { type: 'string' },
  'session-ttl': { type: 'string' },
  cooldown: { type: 'string' },
  'ban-statuses': { type: 'string' },
  drain: { type: 'string' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
} as const;

/** Parses the `gateway` flags; throws FlagError naming the bad flag and value. */
export function parseGatewayFlags(args: string[]): GatewayFlags {
  const r = new FlagReader(args, GATEWAY_OPTIONS, WORDING, 'gateway');
  const pool = r.string('pool');
  const members = r.string('members');
  if ((pool === undefined) === (members === undefined))
    throw new FlagError(
      'gateway: exactly one of --pool NAMESPACE/NAME and --members NAME=HOST:PORT,... is required',
    );
  const flags: GatewayFlags = {
    listen: listenFlag(r.string('listen')),
    drainMs: r.duration('drain', '20s'),
    logLevel: r.oneOf('log-level', 'info', LOG_LEVELS),
    logFormat: r.oneOf('log-format', 'json', LOG_FORMATS),
  };
  if (r.string('selection') !== undefined) flags.selection = r.oneOf('selection', 'round-robin', SELECTIONS);
  if (r.string('rotate') !== undefined) flags.rotate = r.oneOf('rotate', 'per-request', POOL_ROTATES);
  if (r.string('session-ttl') !== undefined) flags.sessionTtlMs = r.duration('session-ttl', '10m');
  if (r.string('cooldown') !== undefined) flags.cooldownMs = r.duration('cooldown', '60s');
  const ban = r.string('ban-statuses');
  if (ban !== undefined) flags.banStatuses = banStatusesFlag(ban);
  if (pool !== undefined) {
    const m = new RegExp(`^(${DNS_LABEL})/(${DNS_LABEL})$`).exec(pool);
    if (!m) throw new FlagError(`--pool: expected NAMESPACE/NAME, got ${JSON.stringify(pool)}`);
    flags.pool = { namespace: m[1] as string, name: m[3] as string };
  }
  if (members !== undefined)
    flags.members = members.split(',').map((item) => {
      const m = MEMBER.exec(item.trim());
      if (!m || Number(m[4]) < 1 || Number(m[4]) > 65535)
        throw new FlagError(`--members: expected name=host:port, got ${JSON.stringify(item)}`);
      return { name: m[1] as string, host: (m[3] as string).replace(/^\[|\]$/g, ''), port: Number(m[4]) };
    });
  if (r.string('kubeconfig')) flags.kubeconfig = r.string('kubeconfig');
  if (r.string('users-dir')) flags.usersDir = r.string('users-dir');
  const socks = r.hostPort('socks-listen');
  if (socks) flags.socksListen = { host: socks.host || '127.0.0.1', port: socks.port };
  const metrics = r.hostPort('metrics');
  if (metrics) flags.metrics = metrics;
  return flags;
}
