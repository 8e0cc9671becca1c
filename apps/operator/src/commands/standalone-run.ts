import { down } from '../standalone/down.js';
import { startEchoServer } from '../standalone/echo-server.js';
import type { PoolView } from '../standalone/standalone-pools.js';
import type { ProxyRecord } from '../standalone/state-file.js';
import type { Io } from './command.js';
import { jsonLine } from './json-records.js';
import { liveDisplay } from './live-display.js';
import { quote, selfCommand } from './self-command.js';
import type { StandaloneFlags } from './standalone-flags.js';
import { StatusView } from './status-view.js';
import { announceReady, stoppedWithUp } from './up-announce.js';
import { allReady, notDeleting, type UpSession } from './up-session.js';
import { claimStateDir, openLog, openStatusPage, reportProviders, startSession } from './up-start.js';

/**
 * Why `up --once` cannot succeed however long it waits, known right after the first scan and
 * health round: a provider module that failed to load, or no valid Proxy in the files.
 */
function onceCannotSucceed(records: ProxyRecord[], loadFailures: number, issues: number): string | undefined {
  if (loadFailures > 0)
    return `${loadFailures === 1 ? 'a provider module' : `${loadFailures} provider modules`} failed to load (above); fix the providers file and run again`;
  if (records.filter(notDeleting).length === 0)
    return `no valid Proxy in the files${issues > 0 ? ` (${issues} problem${issues === 1 ? '' : 's'} listed above)` : ''}`;
  return undefined;
}

/** `--once`: waits until all are Ready (then checks) or the timeout; resolves to the exit code. */
async function runOnce(s: UpSession, loadFailures: number): Promise<number> {
  const { sa, view, flags, io, display } = s;
  const store = sa.store;
  // What --once can never get past is said now, not after its whole timeout.
  const hopeless = onceCannotSucceed(store.records(), loadFailures, store.issues().length);
  if (hopeless) {
    view.say(`not Ready: ${hopeless}`, { type: 'ready', ready: false, error: hopeless });
    display.redraw();
    return 1;
  }
  const waitReady = async (deadline: number): Promise<boolean> => {
    while (Date.now() < deadline) {
      if (allReady(store.records())) return true;
      await new Promise((r) => setTimeout(r, 200));
    }
    return allReady(store.records());
  };
  const ready = await Promise.race([
    waitReady(Date.now() + flags.timeoutMs),
    io.interrupted.then(() => false),
  ]);
  if (ready) return (await announceReady(s, true)) ? 0 : 1;
  const stuck = store.records().filter((r) => notDeleting(r) && r.status?.phase !== 'Ready');
  const why =
    store.records().length === 0
      ? ['no valid Proxy in the files']
      : stuck.map(
          (r) =>
            `${r.namespace}/${r.name} is ${r.status?.phase ?? 'Pending'}: ${r.status?.message ?? 'not reconciled yet'}`,
        );
  for (const w of why)
    view.say(`not Ready after ${Math.round(flags.timeoutMs / 1000)}s: ${w}`, {
      type: 'ready',
      ready: false,
      error: w,
    });
  display.redraw();
  return 1;
}

/** Without --once: reconciles until Ctrl-C, announcing once when all are Ready. */
async function runUntilInterrupted(s: UpSession): Promise<number> {
  const { sa, view, io, display, downHint } = s;
  let announced = false;
  const watchReady = async () => {
    while (!announced) {
      if (allReady(sa.store.records())) {
        announced = true;
        await announceReady(s, false);
        view.say(`Ctrl-C stops reconciling and leaves the proxies running; \`${downHint}\` deletes them.`, {
          type: 'hint',
          hint: downHint,
        });
        display.redraw();
        return;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  void Promise.race([watchReady(), io.interrupted]);
  await io.interrupted;
  announced = true;
  return 0;
}

/**
 * After reconciling stopped: with --once --clean, deletes what was created (false when a delete
 * failed); otherwise says what keeps running and how to delete it.
 */
async function finish(s: UpSession, gateways: (PoolView & { gateway: string })[]): Promise<boolean> {
  const { flags, io, view, stateDir, sa, echo, self, downHint } = s;
  if (flags.once && flags.clean) {
    const r = await down({
      providersPath: flags.providers,
      stateDir,
      onLine: (l) => view.warn(l, { type: 'down-step', message: l }),
    });
    io.out(
      view.mode === 'json'
        ? jsonLine({ type: 'down', deleted: r.deleted.length, errors: r.errors })
        : `cleaned up: deleted ${r.deleted.length} instance(s)${r.errors.length ? `; errors: ${r.errors.join('; ')}` : ''}\n`,
    );
    return r.errors.length === 0;
  }
  if (view.mode !== 'json') {
    const n = sa.store.records().length;
    io.out(
      `stopped reconciling; ${n} prox${n === 1 ? 'y keeps' : 'ies keep'} running. Delete: ${downHint}\n`,
    );
    for (const line of stoppedWithUp(gateways, echo?.url, self)) io.out(`${line}\n`);
  }
  return true;
}

/**
 * `up`: reconciles the Proxies in the files until interrupted (the proxies keep running), or with
 * --once until all are Ready (then, with --clean, deletes what it created).
 */
export async function runUp(flags: StandaloneFlags, io: Io): Promise<number> {
  const stateDir = claimStateDir(flags);
  const { log, logFile } = openLog(flags, stateDir);
  const echo = flags.demo ? await startEchoServer(flags.demoPort) : undefined;
  const view = new StatusView(io, flags.output);
  const sa = await startSession(flags, stateDir, log, echo, view);
  if (view.mode !== 'json')
    io.err(
      `egress-proxies up: installation ${sa.installation}, state in ${stateDir}, logs in ${logFile}${sa.httpPort ? `, metrics on port ${sa.httpPort}` : ''}\n`,
    );
  await sa.healthChecked;
  const loadFailures = reportProviders(sa, view);
  const page = await openStatusPage(sa, view, io);
  const display = liveDisplay(sa.store, view, io);
  // After Ctrl-C the table is left as it is: drawing it again would print it below the ^C.
  void io.interrupted.then(() => view.interrupted());
  const self = selfCommand();
  const s: UpSession = {
    flags,
    io,
    stateDir,
    sa,
    view,
    echo,
    display,
    self,
    downHint: `${self} down --providers ${quote(flags.providers)} --state-dir ${quote(flags.stateDir)}`,
    watching: false,
  };
  let code = 0;
  // What goes away with up (its pools' gateways), read before stopping, to say so after.
  let gateways: (PoolView & { gateway: string })[] = [];
  try {
    code = flags.once ? await runOnce(s, loadFailures) : await runUntilInterrupted(s);
  } finally {
    display.stop();
    gateways = sa.pools.views().filter((p): p is PoolView & { gateway: string } => p.gateway !== undefined);
    await page?.close();
    await sa.stop();
    display.redraw();
    view.release();
  }
  if (!(await finish(s, gateways))) code = 1;
  await echo?.close();
  return code;
}
