import { parseDuration } from '../api/duration.js';
import { LOG_LEVELS } from '../domain/log-levels.js';
import { LOG_FORMATS, type LogFormat } from '../domain/text-format.js';
import { FlagError } from './flag-error.js';
import { FlagReader, type FlagWording } from './flag-reader.js';
import { TUNING_OPTIONS, type TuningFlags } from './tuning-flags.js';

export interface RunFlags extends TuningFlags {
  kubeconfig?: string;
  providersConfig: string;
  installationId?: string;
  namespace?: string;
  operatorNamespace: string;
  leaderElection: boolean;
  leaseName: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  reconcileTimeoutMs: number;
  latchRetryMs: number;
  transientBackoff: { baseMs: number; maxMs: number };
  quotaBackoff: { baseMs: number; maxMs: number };
  http: { host: string; port: number };
  defaultProbeTarget?: string;
  probeCaFile?: string;
  otlpEndpoint?: string;
  logFormat: LogFormat;
  /** The status page on its own port, behind Kubernetes authentication; off when absent. */
  statusPage?: { host: string; port: number; auth: 'kubernetes' };
}

export const RUN_USAGE = `usage: egress-proxies run [flags]

  --kubeconfig PATH             kubeconfig; in-cluster config (or $KUBECONFIG, ~/.kube/config) when absent
  --providers-config PATH       providers config file (default /etc/egress-proxies/config/providers.yaml)
  --installation-id ID          this installation's id (default: the kube-system namespace UID)
  --namespace NS                watch Proxies in NS only (default: all namespaces; needs --installation-id)
  --operator-namespace NS       where the Lease and provider events live (default $POD_NAMESPACE or egress-proxies-system)
  --no-leader-election          reconcile without taking the Lease (one replica only)
  --lease-name NAME             the Lease name (default egress-proxies-operator)
  --lease-duration DURATION     how long the Lease holds without renewal (default 15s)
  --renew-deadline DURATION     a leader that could not renew for this long steps down (default 10s)
  --retry-period DURATION       how often the Lease is acquired or renewed (default 2s)
  --workers N                   concurrent reconciles (default 4)
  --create-concurrency N        creates of one provider running at once; others queue (default 8)
  --create-timeout DURATION     deadline of a create, then aborted and retried (default 30m; per provider: createTimeout)
  --call-timeout DURATION       deadline of every other provider call: get, delete, listByTag, check (default 2m)
  --gc-interval DURATION        orphan GC period (default 5m)
  --gc-grace DURATION           orphans younger than this are kept (default 10m)
  --health-interval DURATION    provider health check period (default 1m)
  --reconcile-timeout DURATION  budget of one reconcile's own calls; creates run outside it (default 10m)
  --latch-retry DURATION        how soon a Proxy latched Failed is tried once more (default 30m)
  --transient-backoff MIN,MAX   retry delays after a Transient error (default 1s,5m)
  --quota-backoff MIN,MAX       retry delays after QuotaExceeded (default 1m,30m)
  --http-bind-address HOST:PORT /metrics, /healthz, /readyz (default 0.0.0.0:8080)
  --log-level LEVEL             fatal, error, warn, info, debug, trace (default info); providers log at debug/trace
  --log-format FORMAT           json (one object a line, default) or text (for a terminal)
  --default-probe-target URL    probe target for Proxies without spec.probe
  --probe-ca-file PATH          extra CA bundle for https probe targets
  --otlp-endpoint URL           OTLP/HTTP traces endpoint (default $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
  --status-page-address HOST:PORT  serve the read-only status page here (off by default); needs --status-page-auth
  --status-page-auth kubernetes    who may read it: a bearer token the API server accepts (TokenReview) whose
                                   user may get the non-resource URL /egress-proxies/status (SubjectAccessReview)
`;

export const RUN_WORDING: FlagWording = {
  duration: (flag, shown) => `${flag}: invalid duration ${shown} (expected e.g. 30s, 5m, 1h)`,
  integer: (flag, shown, min, max) => `${flag}: expected an integer from ${min} to ${max}, got ${shown}`,
  oneOf: (flag, shown, allowed) => `${flag}: expected one of ${allowed.join(', ')}, got ${shown}`,
  hostPort: (flag, shown) => `${flag}: expected HOST:PORT, got ${shown}`,
};

/** The flags `run` takes. */
export const RUN_OPTIONS = {
  ...TUNING_OPTIONS,
  kubeconfig: { type: 'string' },
  'providers-config': { type: 'string' },
  'installation-id': { type: 'string' },
  namespace: { type: 'string' },
  'operator-namespace': { type: 'string' },
  'no-leader-election': { type: 'boolean' },
  'lease-name': { type: 'string' },
  'lease-duration': { type: 'string' },
  'renew-deadline': { type: 'string' },
  'retry-period': { type: 'string' },
  'reconcile-timeout': { type: 'string' },
  'latch-retry': { type: 'string' },
  'transient-backoff': { type: 'string' },
  'quota-backoff': { type: 'string' },
  'http-bind-address': { type: 'string' },
  'default-probe-target': { type: 'string' },
  'probe-ca-file': { type: 'string' },
  'otlp-endpoint': { type: 'string' },
  'log-format': { type: 'string' },
  'status-page-address': { type: 'string' },
  'status-page-auth': { type: 'string' },
} as const;

/** Parses the `run` flags; throws FlagError naming the bad flag. */
export function parseRunFlags(args: string[], env: NodeJS.ProcessEnv = process.env): RunFlags {
  const r = new FlagReader(args, RUN_OPTIONS, RUN_WORDING);
  const str = (k: string) => r.string(k);
  const workers = r.integer('workers', 4, 1, 256);
  const logLevel = r.oneOf('log-level', 'info', LOG_LEVELS);
  const logFormat = r.oneOf('log-format', 'json', LOG_FORMATS);
  const target = str('default-probe-target');
  if (target !== undefined && !/^https?:\/\/\S+$/.test(target)) {
    throw new FlagError(`--default-probe-target: expected an http(s) URL, got ${JSON.stringify(target)}`);
  }
  const installationId = str('installation-id');
  if (installationId !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(installationId)) {
    throw new FlagError(
      `--installation-id: expected 1-63 letters, digits, ".", "_" or "-", got ${JSON.stringify(installationId)}`,
    );
  }
  const otlp = str('otlp-endpoint') ?? env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const gcIntervalMs = r.duration('gc-interval', '5m');
  const gcGraceMs = r.duration('gc-grace', '10m');
  const healthIntervalMs = r.duration('health-interval', '1m');
  const bind = r.hostPort('http-bind-address', '0.0.0.0:8080');
  const leaseDurationMs = r.duration('lease-duration', '15s');
  const renewDeadlineMs = r.duration('renew-deadline', '10s');
  const retryPeriodMs = r.duration('retry-period', '2s');
  // client-go's rule: a leader gives up before its lease can expire under it, and retries in between.
  if (!(retryPeriodMs < renewDeadlineMs && renewDeadlineMs < leaseDurationMs)) {
    throw new FlagError(
      `--retry-period (${retryPeriodMs} ms) < --renew-deadline (${renewDeadlineMs} ms) < --lease-duration (${leaseDurationMs} ms) must hold`,
    );
  }
  const backoff = (name: string, fallback: string) => {
    const v = str(name) ?? fallback;
    const parts = v.split(',');
    try {
      if (parts.length !== 2) throw new Error();
      const [baseMs, maxMs] = parts.map(parseDuration) as [number, number];
      if (!(baseMs > 0 && maxMs >= baseMs)) throw new Error();
      return { baseMs, maxMs };
    } catch {
      throw new FlagError(
        `--${name}: expected MIN,MAX durations with 0 < MIN <= MAX (e.g. ${fallback}), got ${JSON.stringify(v)}`,
      );
    }
  };
  const flags: RunFlags = {
    providersConfig: str('providers-config') ?? '/etc/egress-proxies/config/providers.yaml',
    operatorNamespace: str('operator-namespace') ?? env.POD_NAMESPACE ?? 'egress-proxies-system',
    leaderElection: !r.boolean('no-leader-election'),
    leaseName: str('lease-name') ?? 'egress-proxies-operator',
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
    reconcileTimeoutMs: r.duration('reconcile-timeout', '10m'),
    latchRetryMs: r.duration('latch-retry', '30m'),
    transientBackoff: backoff('transient-backoff', '1s,5m'),
    quotaBackoff: backoff('quota-backoff', '1m,30m'),
    workers,
    createConcurrency: r.integer('create-concurrency', 8, 1, 1024),
    createTimeoutMs: r.duration('create-timeout', '30m'),
    callTimeoutMs: r.duration('call-timeout', '2m'),
    gcIntervalMs,
    gcGraceMs,
    healthIntervalMs,
    // An IPv6 host may be written in brackets, as in a URL.
    http: { host: bind.host || '0.0.0.0', port: bind.port },
    logLevel,
    logFormat,
  };
  if (str('kubeconfig')) flags.kubeconfig = str('kubeconfig');
  if (installationId) flags.installationId = installationId;
  if (str('namespace')) flags.namespace = str('namespace');
  if (target) flags.defaultProbeTarget = target;
  if (str('probe-ca-file')) flags.probeCaFile = str('probe-ca-file');
  if (otlp) flags.otlpEndpoint = otlp;
  const page = statusPageFlags(r);
  if (page) flags.statusPage = page;
  return flags;
}

/** The status page's flags: never served without an authentication source. */
function statusPageFlags(r: FlagReader): RunFlags['statusPage'] {
  const at = r.hostPort('status-page-address');
  const auth = r.string('status-page-auth');
  if (auth !== undefined && auth !== 'kubernetes')
    throw new FlagError(`--status-page-auth: expected kubernetes, got ${JSON.stringify(auth)}`);
  if (!at) {
    if (auth) throw new FlagError('--status-page-auth: set --status-page-address too, or neither');
    return undefined;
  }
  if (!auth)
    throw new FlagError(
      '--status-page-address: the page lists every member and its address, so it is never served without authentication: add --status-page-auth kubernetes',
    );
  return { host: at.host || '0.0.0.0', port: at.port, auth };
}
