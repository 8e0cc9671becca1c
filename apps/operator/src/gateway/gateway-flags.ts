import { FlagError } from '../cli/flag-error.js';
import { FlagReader, type FlagWording } from '../cli/flag-reader.js';
import { LOG_LEVELS, type LogLevelName } from '../log/log-levels.js';
import { type GatewayMember, SELECTIONS, type Selection } from './member-table.js';

export interface GatewayFlags {
  /** `namespace/name` of the ProxyPool whose Ready members to route through (in the cluster). */
  pool?: { namespace: string; name: string };
  /** Fixed members instead of a pool: `name=host:port`. */
  members?: GatewayMember[];
  kubeconfig?: string;
  listen: { host: string; port: number };
  metrics?: { host: string; port: number };
  usersDir?: string;
  selection: Selection;
  sessionTtlMs: number;
  cooldownMs: number;
  drainMs: number;
  logLevel: LogLevelName;
}

export const GATEWAY_USAGE = `usage: egress-proxies gateway (--pool NAMESPACE/NAME | --members NAME=HOST:PORT,...) [flags]

  --pool NS/NAME              route through the Ready members of this ProxyPool (read from the cluster)
  --members LIST              fixed members instead: name=host:port, comma-separated
  --kubeconfig PATH           kubeconfig for --pool; in-cluster config when absent
  --listen HOST:PORT          where clients connect (default 127.0.0.1:8080); off loopback needs --users-dir
  --users-dir DIR             Basic auth users: one file per user holding the password (a mounted Secret)
  --metrics HOST:PORT         /metrics, /healthz, /readyz on their own port (default: none)
  --selection NAME            round-robin, random or least-connections (default: the pool's, else round-robin)
  --session-ttl DURATION      how long a sticky session stays on its member (default 10m)
  --cooldown DURATION         how long a failing or banned member gets no new connections (default 60s)
  --drain DURATION            on SIGTERM, how long open connections may finish (default 20s)
  --log-level LEVEL           fatal, error, warn, info, debug, trace (default info)
`;

const WORDING: FlagWording = {
  duration: (flag, shown) => `${flag}: invalid duration ${shown} (expected e.g. 30s, 5m, 1h)`,
  integer: (flag, shown, min, max) => `${flag}: expected an integer from ${min} to ${max}, got ${shown}`,
  oneOf: (flag, shown, allowed) => `${flag}: expected one of ${allowed.join(', ')}, got ${shown}`,
  hostPort: (flag, shown) => `${flag}: expected HOST:PORT, got ${shown}`,
};

const MEMBER = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)=(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

/** Parses the `gateway` flags; throws FlagError naming the bad flag and value. */
export function parseGatewayFlags(args: string[]): GatewayFlags {
  const r = new FlagReader(
    args,
    {
      pool: { type: 'string' },
      members: { type: 'string' },
      kubeconfig: { type: 'string' },
      listen: { type: 'string' },
      metrics: { type: 'string' },
      'users-dir': { type: 'string' },
      selection: { type: 'string' },
      'session-ttl': { type: 'string' },
      cooldown: { type: 'string' },
      drain: { type: 'string' },
      'log-level': { type: 'string' },
    },
    WORDING,
    'gateway',
  );
  const pool = r.string('pool');
  const members = r.string('members');
  if ((pool === undefined) === (members === undefined))
    throw new FlagError(
      'gateway: exactly one of --pool NAMESPACE/NAME and --members NAME=HOST:PORT,... is required',
    );
  const flags: GatewayFlags = {
    listen: r.hostPort('listen', '127.0.0.1:8080'),
    selection: r.oneOf('selection', 'round-robin', SELECTIONS),
    sessionTtlMs: r.duration('session-ttl', '10m'),
    cooldownMs: r.duration('cooldown', '60s'),
    drainMs: r.duration('drain', '20s'),
    logLevel: r.oneOf('log-level', 'info', LOG_LEVELS),
  };
  if (pool !== undefined) {
    const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9]*[a-z0-9])?)$/.exec(pool);
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
  const metrics = r.hostPort('metrics');
  if (metrics) flags.metrics = metrics;
  return flags;
}
