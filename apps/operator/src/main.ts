#!/usr/bin/env node
import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { COMMAND_USAGE, cliVersion, jsonOutputRequested, wantsHelp } from './commands/command-help.js';
import { parseCrdsFlags } from './commands/crds-flags.js';
import { FlagError } from './commands/flag-error.js';
import { FlagReader } from './commands/flag-reader.js';
import { GATEWAY_USAGE } from './commands/gateway-usage.js';
import { parseRunFlags, RUN_USAGE, RUN_WORDING } from './commands/run-flags.js';
import type { Io } from './commands/standalone-commands.js';
import { parseStandaloneFlags, STANDALONE_USAGE } from './commands/standalone-flags.js';

// Each command imports what it needs when it runs, so `--help` (and a typo) loads none of it.
const standaloneCommands = () => import('./commands/standalone-commands.js');

const USAGE = `usage: egress-proxies <command> [flags]

commands:
  run               run the operator against a cluster (in-cluster config or --kubeconfig)
  crds [--out DIR]  print the CRD manifests, or write them into DIR
  up                run without a cluster: Proxies from files, proxies created through the providers
  status            the status an \`up\` reported, from another shell
  down              delete what \`up\` created (this state dir's installation)
  gateway           the endpoint of a ProxyPool (or of fixed members): one HTTP proxy in front of many
  secret KIND       print (or --apply) the Secret for kvm-ssh, proxmox-token or gcp-key credentials
  version           print the version (also --version)

\`egress-proxies <command> --help\` prints one command's flags.

${RUN_USAGE}
${STANDALONE_USAGE}
${GATEWAY_USAGE}`;

function terminalIo(signals = false): Io {
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    isTTY: process.stdout.isTTY === true,
    ...(process.stdout.columns ? { columns: process.stdout.columns } : {}),
    // Only `up` traps Ctrl-C (to stop reconciling cleanly); the others die on it as usual.
    interrupted: signals
      ? new Promise<void>((resolve) => {
          process.once('SIGINT', () => resolve());
          process.once('SIGTERM', () => resolve());
        })
      : new Promise<void>(() => {}),
  };
}

async function run(args: string[]): Promise<number> {
  const flags = parseRunFlags(args);
  const [
    { KubeConfig },
    { createOperatorLogger, providerLoggerFrom },
    { textDestination },
    { startOperator },
    { startTracing },
  ] = await Promise.all([
    import('@kubernetes/client-node'),
    import('./domain/logger.js'),
    import('./domain/text-format.js'),
    import('./cluster/operator.js'),
    import('./telemetry/tracing.js'),
  ]);
  const log = createOperatorLogger(
    flags.logLevel,
    flags.logFormat === 'text' ? textDestination() : undefined,
  );
  const tracing = startTracing(flags.otlpEndpoint ? { endpoint: flags.otlpEndpoint } : {});
  const kc = new KubeConfig();
  const where = flags.kubeconfig ?? 'the default kubeconfig (in-cluster, $KUBECONFIG or ~/.kube/config)';
  try {
    if (flags.kubeconfig) kc.loadFromFile(flags.kubeconfig);
    else kc.loadFromDefault();
  } catch (err) {
    throw new FlagError(`cannot load ${where}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!kc.getCurrentCluster()) throw new FlagError(`${where} names no current cluster`);
  const ca = flags.probeCaFile ? await readFile(flags.probeCaFile, 'utf8') : undefined;
  let exitCode = 0;
  const op = await startOperator({
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
    workers: flags.workers,
    createConcurrency: flags.createConcurrency,
    createTimeoutMs: flags.createTimeoutMs,
    callTimeoutMs: flags.callTimeoutMs,
    gcIntervalMs: flags.gcIntervalMs,
    gcGraceMs: flags.gcGraceMs,
    healthIntervalMs: flags.healthIntervalMs,
    http: flags.http,
    logger: log,
    providerLogger: providerLoggerFrom(log),
    ...(flags.installationId ? { installation: flags.installationId } : {}),
    ...(flags.namespace ? { watchNamespace: flags.namespace } : {}),
    ...(flags.defaultProbeTarget ? { defaultProbeTarget: flags.defaultProbeTarget } : {}),
    ...(ca ? { probe: { ca } } : {}),
    onLostLeadership: () => {
      exitCode = 1;
      process.kill(process.pid, 'SIGTERM');
    },
  });
  log.info(
    { installation: op.installation, identity: op.identity, httpPort: op.httpPort },
    'operator started',
  );
  const { KubePoolController } = await import('./cluster/kube-pool-controller.js');
  const pools = new KubePoolController({
    kubeConfig: kc,
    logger: log,
    isLeader: () => op.isLeader(),
    ...(flags.namespace ? { namespace: flags.namespace } : {}),
  });
  pools.start();
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  log.info({}, 'stopping');
  await pools.stop();
  await op.stop();
  await tracing?.shutdown();
  return exitCode;
}

async function crds(args: string[]): Promise<number> {
  const files = (await import('./api/crd.js')).crdFiles();
  const { out: dir } = parseCrdsFlags(args);
  if (dir !== undefined) {
    if (!dir) throw new FlagError('--out: a directory is required');
    mkdirSync(dir, { recursive: true });
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return 0;
  }
  process.stdout.write(Object.values(files).join('---\n'));
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const name = command === '--version' || command === '-v' ? 'version' : command;
  const usage = name === undefined ? undefined : COMMAND_USAGE[name];
  if (usage && wantsHelp(rest)) {
    process.stdout.write(usage);
    return 0;
  }
  try {
    switch (command) {
      case 'version':
      case '--version':
      case '-v':
        // Strict like every command: an unknown flag or a stray word is refused, naming it.
        new FlagReader(rest, {}, RUN_WORDING, 'version');
        process.stdout.write(`egress-proxies ${cliVersion()}\n`);
        return 0;
      case 'secret':
        return await (await import('./commands/secret-command.js')).secretCommand(rest, terminalIo());
      case 'run':
        return await run(rest);
      case 'crds':
        return await crds(rest);
      case 'up': {
        const flags = parseStandaloneFlags('up', rest);
        return await (await standaloneCommands()).upCommand(flags, terminalIo(true));
      }
      case 'status': {
        const flags = parseStandaloneFlags('status', rest);
        return (await standaloneCommands()).statusCommand(flags, terminalIo());
      }
      case 'down': {
        const flags = parseStandaloneFlags('down', rest);
        return await (await standaloneCommands()).downCommand(flags, terminalIo());
      }
      case 'gateway': {
        const { parseGatewayFlags } = await import('./commands/gateway-flags.js');
        const { gatewayCommand } = await import('./commands/gateway-command.js');
        return await gatewayCommand(parseGatewayFlags(rest), terminalIo(true).interrupted);
      }
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(USAGE);
        return command === undefined ? 2 : 0;
      default:
        process.stderr.write(`unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    // By its code, not its class: the contract is not loaded for a flag mistake.
    const bad =
      (err as { code?: unknown } | null)?.code === 'INVALID_PROVIDERS_CONFIG' || FlagError.isInstance(err);
    if (jsonOutputRequested(rest)) {
      // --output json: the error is a record too, so a script never meets an unparsable line.
      const message = err instanceof Error ? err.message : String(err);
      process.stderr.write(
        `${JSON.stringify({ type: 'error', code: bad ? 'INVALID_INPUT' : 'FAILED', message })}\n`,
      );
      return bad ? 2 : 1;
    }
    if (bad) {
      process.stderr.write(`egress-proxies: ${(err as Error).message}\n`);
      return 2;
    }
    process.stderr.write(`egress-proxies: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
