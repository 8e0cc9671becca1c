import { readFile } from 'node:fs/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Command } from './command.js';
import { FlagError } from './flag-error.js';
import { parseRunFlags, RUN_OPTIONS, RUN_USAGE, type RunFlags } from './run-flags.js';
import { tuningOptions } from './tuning-flags.js';

/** `run`: the operator against a cluster, until SIGTERM or SIGINT. */
export const runCommand: Command = {
  name: 'run',
  summary: 'run the operator against a cluster (in-cluster config or --kubeconfig)',
  usage: RUN_USAGE,
  flags: Object.keys(RUN_OPTIONS),
  run: (args) => runOperator(parseRunFlags(args)),
};

/** The kubeconfig the flags name, else the default one; a bad one is a flag mistake. */
async function loadKubeConfig(flags: RunFlags): Promise<KubeConfig> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  const where = flags.kubeconfig ?? 'the default kubeconfig (in-cluster, $KUBECONFIG or ~/.kube/config)';
  try {
    if (flags.kubeconfig) kc.loadFromFile(flags.kubeconfig);
    else kc.loadFromDefault();
  } catch (err) {
    throw new FlagError(`cannot load ${where}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!kc.getCurrentCluster()) throw new FlagError(`${where} names no current cluster`);
  return kc;
}

/** The operator's options from the flags. */
async function startFromFlags(flags: RunFlags, kc: KubeConfig, log: Logger, onLostLeadership: () => void) {
  const [{ providerLoggerFrom }, { startOperator }] = await Promise.all([
    import('../domain/logger.js'),
    import('../cluster/operator.js'),
  ]);
  const ca = flags.probeCaFile ? await readFile(flags.probeCaFile, 'utf8') : undefined;
  return startOperator({
    kubeConfig: kc,
    configPath: flags.providersConfig,
    operatorNamespace: flags.operatorNamespace,
    leaderElection: flags.leaderElection,
    leaseName: flags.leaseName,
    leaseDurationMs: flags.leaseDurationMs,
    renewDeadlineMs: flags.renewDeadlineMs,
    retryPeriodMs: flags.retryPeriodMs,
    reconcileTimeoutMs: flags.reconcileTimeoutMs,
    latchRetryMs: flags.latchRetryMs,
    rateLimiter: { tiers: { transient: flags.transientBackoff, quota: flags.quotaBackoff } },
    ...tuningOptions(flags),
    http: flags.http,
    logger: log,
    providerLogger: providerLoggerFrom(log),
    ...(flags.installationId ? { installation: flags.installationId } : {}),
    ...(flags.namespace ? { watchNamespace: flags.namespace } : {}),
    ...(flags.defaultProbeTarget ? { defaultProbeTarget: flags.defaultProbeTarget } : {}),
    ...(ca ? { probe: { ca } } : {}),
    onLostLeadership,
  });
}

const stopRequested = () =>
  new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });

async function runOperator(flags: RunFlags): Promise<number> {
  const [{ createOperatorLogger }, { textDestination }, { startTracing }] = await Promise.all([
    import('../domain/logger.js'),
    import('../domain/text-format.js'),
    import('../telemetry/tracing.js'),
  ]);
  const log = createOperatorLogger(
    flags.logLevel,
    flags.logFormat === 'text' ? textDestination() : undefined,
  );
  // Trapped before anything starts: a SIGTERM while the page or the operator is still starting
  // (a rollout that replaces a pod at once) stops them cleanly after the start, instead of
  // killing the process by the signal's default action with nothing closed.
  const stop = stopRequested();
  const tracing = startTracing(flags.otlpEndpoint ? { endpoint: flags.otlpEndpoint } : {});
  const kc = await loadKubeConfig(flags);
  let exitCode = 0;
  // The page first: a page that cannot start (its port taken, the rights to read the pools
  // missing) stops `run` before anything else runs and would keep the process alive.
  const page = flags.statusPage
    ? await (await import('../cluster/cluster-status-page.js')).startClusterStatusPage({
        kubeConfig: kc,
        host: flags.statusPage.host,
        port: flags.statusPage.port,
        logger: log,
        ...(flags.namespace ? { namespace: flags.namespace } : {}),
      })
    : undefined;
  const op = await startFromFlags(flags, kc, log, () => {
    exitCode = 1;
    process.kill(process.pid, 'SIGTERM');
  }).catch(async (err) => {
    await page?.close();
    throw err;
  });
  log.info(
    { installation: op.installation, identity: op.identity, httpPort: op.httpPort },
    'operator started',
  );
  const { KubePoolController } = await import('../cluster/kube-pool-controller.js');
  const pools = new KubePoolController({
    kubeConfig: kc,
    logger: log,
    isLeader: () => op.isLeader(),
    ...(flags.namespace ? { namespace: flags.namespace } : {}),
  });
  pools.start();
  await stop;
  log.info({}, 'stopping');
  await page?.close();
  await pools.stop();
  await op.stop();
  await tracing?.shutdown();
  return exitCode;
}
