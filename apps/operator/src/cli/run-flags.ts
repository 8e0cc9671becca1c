import { parseArgs } from 'node:util';
import { parseDuration } from '../api/duration.js';
import { LOG_LEVELS, type LogLevelName } from '../log/logger.js';

export interface RunFlags {
  kubeconfig?: string;
  providersConfig: string;
  installationId?: string;
  namespace?: string;
  operatorNamespace: string;
  leaderElection: boolean;
  leaseName: string;
  workers: number;
  gcIntervalMs: number;
  gcGraceMs: number;
  healthIntervalMs: number;
  http: { host: string; port: number };
  logLevel: LogLevelName;
  defaultProbeTarget?: string;
  probeCaFile?: string;
  otlpEndpoint?: string;
}

export const RUN_USAGE = `usage: egress-proxies run [flags]

  --kubeconfig PATH             kubeconfig; in-cluster config (or $KUBECONFIG, ~/.kube/config) when absent
  --providers-config PATH       providers config file (default /etc/egress-proxies/config/providers.yaml)
  --installation-id ID          this installation's id (default: the kube-system namespace UID)
  --namespace NS                watch Proxies in NS only (default: all namespaces; needs --installation-id)
  --operator-namespace NS       where the Lease and provider events live (default $POD_NAMESPACE or egress-proxies-system)
  --no-leader-election          reconcile without taking the Lease (one replica only)
  --lease-name NAME             the Lease name (default egress-proxies-operator)
  --workers N                   concurrent reconciles (default 4)
  --gc-interval DURATION        orphan GC period (default 5m)
  --gc-grace DURATION           orphans younger than this are kept (default 10m)
  --health-interval DURATION    provider health check period (default 1m)
  --http-bind-address HOST:PORT /metrics, /healthz, /readyz (default 0.0.0.0:8080)
  --log-level LEVEL             fatal, error, warn, info, debug, trace (default info); providers log at debug/trace
  --default-probe-target URL    probe target for Proxies without spec.probe
  --probe-ca-file PATH          extra CA bundle for https probe targets
  --otlp-endpoint URL           OTLP/HTTP traces endpoint (default $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
`;

/** A bad flag: the message names the flag and the value. */
export class FlagError extends Error {
  readonly code = 'INVALID_FLAG';
  constructor(message: string) {
    super(message);
    this.name = 'FlagError';
  }
}

function duration(flag: string, value: string): number {
  try {
    return parseDuration(value);
  } catch {
    throw new FlagError(`--${flag}: invalid duration ${JSON.stringify(value)} (expected e.g. 30s, 5m, 1h)`);
  }
}

function hostPort(flag: string, value: string): { host: string; port: number } {
  const m = /^(.*):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[2]) : Number.NaN;
  if (!m || port > 65535) throw new FlagError(`--${flag}: expected HOST:PORT, got ${JSON.stringify(value)}`);
  return { host: (m[1] || '0.0.0.0').replace(/^\[(.*)\]$/, '$1'), port };
}

/** Parses the `run` flags; throws FlagError naming the bad flag. */
export function parseRunFlags(args: string[], env: NodeJS.ProcessEnv = process.env): RunFlags {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        kubeconfig: { type: 'string' },
        'providers-config': { type: 'string' },
        'installation-id': { type: 'string' },
        namespace: { type: 'string' },
        'operator-namespace': { type: 'string' },
        'no-leader-election': { type: 'boolean' },
        'lease-name': { type: 'string' },
        workers: { type: 'string' },
        'gc-interval': { type: 'string' },
        'gc-grace': { type: 'string' },
        'health-interval': { type: 'string' },
        'http-bind-address': { type: 'string' },
        'log-level': { type: 'string' },
        'default-probe-target': { type: 'string' },
        'probe-ca-file': { type: 'string' },
        'otlp-endpoint': { type: 'string' },
      },
    }));
  } catch (err) {
    throw new FlagError(err instanceof Error ? err.message : String(err));
  }
  const str = (k: string) => values[k] as string | undefined;
  const workers = Number(str('workers') ?? '4');
  if (!Number.isInteger(workers) || workers < 1 || workers > 256) {
    throw new FlagError(
      `--workers: expected an integer from 1 to 256, got ${JSON.stringify(str('workers'))}`,
    );
  }
  const logLevel = (str('log-level') ?? 'info') as LogLevelName;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new FlagError(
      `--log-level: expected one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`,
    );
  }
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
  const flags: RunFlags = {
    providersConfig: str('providers-config') ?? '/etc/egress-proxies/config/providers.yaml',
    operatorNamespace: str('operator-namespace') ?? env.POD_NAMESPACE ?? 'egress-proxies-system',
    leaderElection: values['no-leader-election'] !== true,
    leaseName: str('lease-name') ?? 'egress-proxies-operator',
    workers,
    gcIntervalMs: duration('gc-interval', str('gc-interval') ?? '5m'),
    gcGraceMs: duration('gc-grace', str('gc-grace') ?? '10m'),
    healthIntervalMs: duration('health-interval', str('health-interval') ?? '1m'),
    http: hostPort('http-bind-address', str('http-bind-address') ?? '0.0.0.0:8080'),
    logLevel,
  };
  if (str('kubeconfig')) flags.kubeconfig = str('kubeconfig');
  if (installationId) flags.installationId = installationId;
  if (str('namespace')) flags.namespace = str('namespace');
  if (target) flags.defaultProbeTarget = target;
  if (str('probe-ca-file')) flags.probeCaFile = str('probe-ca-file');
  if (otlp) flags.otlpEndpoint = otlp;
  return flags;
}
