import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { createOperatorLogger, providerLoggerFrom } from '../domain/logger.js';
import { textDestination } from '../domain/text-format.js';
import { formatIssue } from '../standalone/proxy-documents.js';
import { type RunningStandalone, startStandalone } from '../standalone/standalone.js';
import { readState, removeStaleTempFiles } from '../standalone/state-file.js';
import { StandaloneStatusPage } from '../standalone/status-page-data.js';
import { type RunningStatusPage, startStatusPage } from '../status-page/status-page-server.js';
import type { Io } from './command.js';
import { FlagError } from './flag-error.js';
import { jsonLine, providerJson } from './json-records.js';
import { isAlive } from './pid-alive.js';
import type { StandaloneFlags } from './standalone-flags.js';
import type { StatusView } from './status-view.js';
import { tuningOptions } from './tuning-flags.js';
import type { EchoServer } from './up-session.js';

/** The state dir, created, when no other `up` holds it; stale temporary files removed. */
export function claimStateDir(flags: StandaloneFlags): string {
  const stateDir = resolve(flags.stateDir);
  mkdirSync(stateDir, { recursive: true });
  const prior = readState(stateDir);
  if (prior && isAlive(prior.pid))
    throw new FlagError(
      `another up (pid ${prior.pid}) uses ${stateDir}; stop it or pass another --state-dir`,
    );
  removeStaleTempFiles(stateDir, isAlive);
  return stateDir;
}

/** The log goes to a file, so the terminal keeps the table. */
export function openLog(flags: StandaloneFlags, stateDir: string) {
  const logFile = flags.logFile ?? join(stateDir, 'up.log');
  const file = pino.destination({ dest: logFile, sync: true, mkdir: true });
  const log = createOperatorLogger(flags.logLevel, flags.logFormat === 'text' ? textDestination(file) : file);
  return { log, logFile };
}

/** Starts reconciling the files; invalid documents are warned about once per change. */
export async function startSession(
  flags: StandaloneFlags,
  stateDir: string,
  log: ReturnType<typeof createOperatorLogger>,
  echo: EchoServer | undefined,
  view: StatusView,
): Promise<RunningStandalone> {
  let lastIssues = '';
  try {
    return await startStandalone({
      proxyPaths: flags.files,
      providersPath: flags.providers,
      stateDir,
      ...tuningOptions(flags),
      ...(flags.http ? { http: flags.http } : {}),
      ...(flags.gatewayHost !== undefined ? { gatewayHost: flags.gatewayHost } : {}),
      ...(flags.gatewayUsers ? { gatewayUsers: flags.gatewayUsers } : {}),
      ...(flags.gatewaySocks ? { gatewaySocks: flags.gatewaySocks } : {}),
      poolDrainTimeoutMs: flags.poolDrainTimeoutMs,
      ...(echo ? { defaultProbeTarget: echo.url } : {}),
      // A local proxy answers within milliseconds; a failed probe is retried soon.
      failedProbeRetryMs: 2000,
      pollIntervalMs: 1000,
      logger: log,
      providerLogger: providerLoggerFrom(log),
      extra: () => (echo ? { demoTarget: echo.url } : {}),
      onIssues: (issues) => {
        const text = issues.map(formatIssue).join('\n');
        if (text === lastIssues) return;
        lastIssues = text;
        for (const i of issues)
          view.warn(`invalid Proxy document: ${formatIssue(i)}`, { type: 'issue', message: formatIssue(i) });
      },
    });
  } catch (err) {
    await echo?.close();
    throw err;
  }
}

/**
 * The first round of the providers' health checks, said: a provider that cannot work (a missing
 * engine, an unwritable state dir) is named before any Proxy gets stuck on it. Returns how many
 * provider modules failed to load.
 */
export function reportProviders(sa: RunningStandalone, view: StatusView): number {
  const loadFailures = sa.providers.failures();
  for (const f of loadFailures)
    view.warn(`cannot load ${f.message}`, {
      type: 'provider-load',
      provider: f.entry.name,
      module: f.module,
      message: f.message,
    });
  const failedNames = new Set(loadFailures.map((f) => f.entry.name));
  for (const p of sa.store.providerHealth()) {
    if (failedNames.has(p.name)) continue;
    const failing = p.status.targets?.filter((t) => !t.ready) ?? [];
    for (const t of failing)
      view.warn(
        `provider ${p.name}: ${t.target} is not ready (${t.reason}): ${t.message ?? ''}`,
        providerJson(p),
      );
    if (!p.status.targets && p.status.ready === false)
      view.warn(`provider ${p.name}: ${p.status.message ?? 'not ready'}`, providerJson(p));
  }
  return loadFailures.length;
}

/**
 * The status page on loopback (any free port), said with a curl line for its JSON. A page that
 * cannot start is a warning: `up` runs on without it.
 */
export async function openStatusPage(
  sa: RunningStandalone,
  view: StatusView,
  io: Io,
): Promise<RunningStatusPage | undefined> {
  // Subscribed from now on, so events that come before the first page is opened are shown too.
  const source = new StandaloneStatusPage(sa.pools, sa.store);
  try {
    const page = await startStatusPage({
      host: '127.0.0.1',
      port: 0,
      snapshot: () => source.snapshot(),
      onClose: () => source.close(),
    });
    const api = `${page.url}api/status`;
    if (view.mode === 'json') io.out(jsonLine({ type: 'status-page', url: page.url, api }));
    else io.err(`status page: ${page.url} (its data: curl ${api})\n`);
    return page;
  } catch (err) {
    source.close();
    const error = err instanceof Error ? err.message : String(err);
    view.warn(`status page not started: ${error}`, { type: 'status-page', error });
    return undefined;
  }
}
